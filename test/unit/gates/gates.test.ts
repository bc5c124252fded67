// Runs every case of the shipped gates' corpora (fixtures/<gate>/*.yaml) through the gate scripts
// directly, with the host's python3, and checks the decision against the case's `blocked` and
// `reason`. A fixture file's cases go to one process of its gate in worker mode (docs/gates.md,
// "Workers"), as hookbox sends events to a handler with `"worker": true`: the gates keep no state
// between events, so one process answers as a process per case would, without python's start-up
// per case. Fast feedback on the gates' logic; `hookbox test fixtures/` checks the real containers
// (exit codes, stdout, workspace state, containment with the gate switched off).
import { execFileSync, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { parseFixture } from '../../../src/testing/load-fixtures.js';
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const ROOT = resolve(import.meta.dirname, '../../..');
const FIXTURES = join(ROOT, 'fixtures');
const GATE_SCRIPTS: Record<string, string> = {
  destructive: join(ROOT, 'hooks-scripts/destructive/gate.py'),
  'sensitive-paths': join(ROOT, 'hooks-scripts/sensitive-paths/gate.py'),
};

interface Matcher {
  exact?: string;
  regex?: string;
}
interface FixtureCase {
  name: string;
  call: { name: string; args: Record<string, unknown> };
  expect: { blocked?: boolean; reason?: Matcher; [key: string]: unknown };
  destructive?: boolean;
}
interface Fixture {
  name: string;
  gate: string;
  workspace_files?: Record<string, string>;
  cases: FixtureCase[];
}
interface Decision {
  decision?: string;
  reason?: string;
}

// One python3 lookup, then the interpreter itself: a version manager's shim (pyenv) can cost
// more per call than the gate does.
const PYTHON = execFileSync('python3', ['-c', 'import sys; print(sys.executable)'], {
  encoding: 'utf8',
}).trim();

const scratch = mkdtempSync(join(tmpdir(), 'hookbox-gates-'));
// Shared by every run, like the sandbox's hook state dir: gate.py caches its bytecode there.
const stateDir = join(scratch, 'state');
mkdirSync(stateDir);

function runGate(script: string, call: FixtureCase['call'], workspace: string): Decision {
  const payload = { tool_call: call, environment_id: 'env_unit' };
  const out = execFileSync(PYTHON, [script], {
    input: JSON.stringify(payload),
    cwd: workspace, // hooks run with the workspace as their cwd
    encoding: 'utf8',
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOOKBOX_EVENT: 'pre_tool_execution',
      HOOKBOX_TOOL_NAME: call.name,
      HOOKBOX_ENVIRONMENT_ID: 'env_unit',
      HOOKBOX_STATE_DIR: stateDir,
      PYTHONSAFEPATH: '1',
      PYTHONDONTWRITEBYTECODE: '1',
    },
  });
  // The contract: exactly one JSON object on stdout.
  return JSON.parse(out) as Decision;
}

/**
 * One gate process in worker mode: one `{"env": ..., "event": ...}` line in, one decision line out
 * per event, as the sandbox agent speaks to a worker (docs/gates.md, "Workers"). The same payload
 * and variables as {@link runGate}; HOOKBOX_WORKER=1 is what switches the script to this mode.
 */
class GateWorker {
  private readonly child;
  private readonly answers: ((line: string | Error) => void)[] = [];
  private stderr = '';

  constructor(script: string, workspace: string) {
    this.child = spawn(PYTHON, [script], {
      cwd: workspace, // hooks run with the workspace as their cwd
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOOKBOX_STATE_DIR: stateDir,
        HOOKBOX_WORKER: '1',
        PYTHONSAFEPATH: '1',
        PYTHONDONTWRITEBYTECODE: '1',
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.child.stderr.on('data', (chunk: Buffer) => (this.stderr += chunk.toString()));
    createInterface({ input: this.child.stdout }).on('line', (line) =>
      this.answers.shift()?.(line),
    );
    this.child.on('exit', (code) => {
      const gone = new Error(`gate worker exited (${code}): ${this.stderr.slice(-2000)}`);
      for (const answer of this.answers.splice(0)) answer(gone);
    });
  }

  /** The decision on one call; the worker must answer with exactly one JSON object on a line. */
  async ask(call: FixtureCase['call']): Promise<Decision> {
    const line = await new Promise<string | Error>((resolve) => {
      this.answers.push(resolve);
      const env = {
        HOOKBOX_EVENT: 'pre_tool_execution',
        HOOKBOX_TOOL_NAME: call.name,
        HOOKBOX_ENVIRONMENT_ID: 'env_unit',
      };
      const event = { tool_call: call, environment_id: 'env_unit' };
      this.child.stdin.write(JSON.stringify({ env, event }) + '\n');
    });
    if (line instanceof Error) throw line;
    return JSON.parse(line) as Decision;
  }

  close(): void {
    this.child.stdin.end();
  }
}

function makeWorkspace(files: Record<string, string> | undefined): string {
  const dir = mkdtempSync(join(scratch, 'ws-'));
  for (const [rel, content] of Object.entries(files ?? {})) {
    mkdirSync(dirname(join(dir, rel)), { recursive: true });
    writeFileSync(join(dir, rel), content);
  }
  return dir;
}

function matches(text: string, m: Matcher): boolean {
  if (m.exact !== undefined) return text === m.exact;
  if (m.regex !== undefined) return new RegExp(m.regex).test(text);
  return true;
}

function loadFixtures(): { file: string; fixture: Fixture }[] {
  const out: { file: string; fixture: Fixture }[] = [];
  for (const dir of readdirSync(FIXTURES, { withFileTypes: true })) {
    if (!dir.isDirectory()) continue;
    for (const name of readdirSync(join(FIXTURES, dir.name)).sort()) {
      if (!name.endsWith('.yaml') && !name.endsWith('.yml')) continue;
      const file = join(dir.name, name);
      const fixture = parse(readFileSync(join(FIXTURES, file), 'utf8')) as Fixture;
      if (fixture && fixture.gate in GATE_SCRIPTS) out.push({ file, fixture });
    }
  }
  return out;
}

const fixtures = loadFixtures();

// Per gate: destructive/must-block cases blocked, and benign cases let through.
const tally: Record<
  string,
  { mustBlock: number; blocked: number; benign: number; allowed: number }
> = {};

describe('fixture files use only the fixture format', () => {
  it('finds the corpora of both gates', () => {
    const gates = new Set(fixtures.map((f) => f.fixture.gate));
    expect([...gates].sort()).toEqual(['destructive', 'sensitive-paths']);
  });

  it.each(fixtures.map((f) => [f.file, f.fixture] as const))('%s', (file, fixture) => {
    // The runner's own parser: the fixture format, unknown fields and impossible expectations.
    expect(() => parseFixture(readFileSync(join(FIXTURES, file), 'utf8'), file)).not.toThrow();
    const names = new Set<string>();
    for (const c of fixture.cases) {
      expect(typeof c.expect.blocked, c.name).toBe('boolean');
      expect(names.has(c.name), `duplicate case ${c.name}`).toBe(false);
      names.add(c.name);
      if (c.destructive) expect(c.expect.blocked, c.name).toBe(true);
      // A blocked call never runs: expectations about its run could never hold.
      if (c.expect.blocked) {
        expect(Object.keys(c.expect).sort(), c.name).toEqual(
          c.expect.reason ? ['blocked', 'reason'] : ['blocked'],
        );
      }
    }
  });

  it('the destructive corpus has at least 150 destructive cases and 100 benign look-alikes', () => {
    const cases = fixtures
      .filter((f) => f.fixture.gate === 'destructive')
      .flatMap((f) => f.fixture.cases);
    expect(cases.filter((c) => c.destructive).length).toBeGreaterThanOrEqual(150);
    expect(cases.filter((c) => !c.expect.blocked).length).toBeGreaterThanOrEqual(100);
  });
});

for (const { file, fixture } of fixtures) {
  describe(file, () => {
    const workspace = makeWorkspace(fixture.workspace_files);
    const script = GATE_SCRIPTS[fixture.gate] as string;
    const t = (tally[fixture.gate] ??= { mustBlock: 0, blocked: 0, benign: 0, allowed: 0 });
    let worker: GateWorker;
    beforeAll(() => {
      worker = new GateWorker(script, workspace);
      return () => worker.close();
    });

    it.each(fixture.cases.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
      const decision = await worker.ask(c.call);
      const blocked = decision.decision === 'deny';
      if (c.expect.blocked) {
        t.mustBlock += 1;
        if (blocked) t.blocked += 1;
      } else {
        t.benign += 1;
        if (!blocked) t.allowed += 1;
      }
      expect({ blocked, reason: decision.reason }).toMatchObject({ blocked: c.expect.blocked });
      if (c.expect.reason) {
        expect(decision.reason ?? '', `reason of ${c.name}`).toSatisfy((r: string) =>
          matches(r, c.expect.reason as Matcher),
        );
      }
    });
  });
}

// Configuration: each gate reads config.json next to itself, so these tests copy a gate to a
// temporary folder and change its config there.
function gateCopy(gate: string, config: unknown): string {
  const dir = mkdtempSync(join(scratch, `${gate}-`));
  cpSync(join(ROOT, 'hooks-scripts', gate), dir, { recursive: true });
  writeFileSync(join(dir, 'config.json'), JSON.stringify(config));
  return join(dir, 'gate.py');
}

const code = (text: string, language = 'bash') => ({
  name: 'code_execution',
  args: { code: text, language },
});

describe('destructive gate configuration', () => {
  const ws = makeWorkspace({});

  it('fails closed on an unknown key or a bad value', () => {
    for (const config of [{ rulez: {} }, { rules: { 'no-such-rule': true } }, { max_depth: 'x' }]) {
      const d = runGate(gateCopy('destructive', config), code('echo hi'), ws);
      expect(d.decision).toBe('deny');
      expect(d.reason).toMatch(/^gate-config-error: /);
    }
  });

  it('lets a switched-off rule through and keeps the others', () => {
    const script = gateCopy('destructive', { rules: { 'git-destructive': false } });
    expect(runGate(script, code('git reset --hard'), ws).decision).toBe('allow');
    expect(runGate(script, code('rm -rf /etc'), ws).decision).toBe('deny');
  });

  it('allows deletion under allowed_paths', () => {
    const script = gateCopy('destructive', { allowed_paths: ['/tmp'] });
    expect(runGate(script, code('rm -rf /tmp/build'), ws).decision).toBe('allow');
    expect(runGate(script, code('rm -rf /tmp/../etc'), ws).decision).toBe('deny');
  });

  it('blocks commands matching blocked_patterns, after disguises are undone', () => {
    const script = gateCopy('destructive', {
      blocked_patterns: [{ name: 'no-shutdown', regex: '^(shutdown|reboot)\\b' }],
    });
    const d = runGate(script, code(`X=shut; "$X"'down' now`), ws);
    expect(d.reason).toMatch(/^custom-pattern: .*no-shutdown/);
    expect(runGate(script, code('echo shutdown'), ws).decision).toBe('allow');
  });
});

describe('sensitive-path gate configuration', () => {
  const ws = makeWorkspace({ 'secrets/token.txt': 'x', 'notes.txt': 'y' });

  it('fails closed on a bad config', () => {
    const d = runGate(
      gateCopy('sensitive-paths', { blocked_paths: ['relative/**'] }),
      code('ls'),
      ws,
    );
    expect(d.reason).toMatch(/^gate-config-error: /);
  });

  it('blocks configured path patterns for file tools and code', () => {
    const script = gateCopy('sensitive-paths', { blocked_paths: ['/workspace/secrets/**'] });
    const read = { name: 'read_file', args: { path: 'secrets/token.txt' } };
    expect(runGate(script, read, ws).reason).toMatch(/^sensitive-path:configured-path: /);
    expect(runGate(script, code('cat secrets/token.txt'), ws).decision).toBe('deny');
    expect(runGate(script, { name: 'read_file', args: { path: 'notes.txt' } }, ws).decision).toBe(
      'allow',
    );
  });
});

describe('sensitive-path gate as a worker', () => {
  // The worker keeps the configuration it built while config.json is unchanged: an edit of the
  // file must still take effect on the next event, and a broken edit must fail closed.
  const DRIVER = `import json, os, subprocess, sys
script, config_path, workspace = sys.argv[1:4]
event = {"hook_event_name": "pre_tool_execution",
         "tool_call": {"name": "read_file", "args": {"path": workspace + "/secrets/token.txt"}}}
worker = subprocess.Popen([sys.executable, script], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                          env={**os.environ, "HOOKBOX_WORKER": "1"}, cwd=workspace)
answers = []
def ask():
    worker.stdin.write((json.dumps({"env": {}, "event": event}) + "\\n").encode())
    worker.stdin.flush()
    answers.append(json.loads(worker.stdout.readline()))
ask()
for text in sys.argv[4:]:
    with open(config_path, "w") as f:
        f.write(text)
    ask()
worker.stdin.close()
worker.wait()
print(json.dumps(answers))`;

  it('sees config.json edited between events, and fails closed on a broken edit', () => {
    const ws = makeWorkspace({ 'secrets/token.txt': 'x' });
    const script = gateCopy('sensitive-paths', {
      workspace: ws,
      blocked_paths: [`${ws}/secrets/**`],
    });
    const configPath = join(dirname(script), 'config.json');
    const out = execFileSync(
      PYTHON,
      [
        '-c',
        DRIVER,
        script,
        configPath,
        ws,
        JSON.stringify({ workspace: ws, blocked_paths: [] }),
        '{"blocked_paths": 3',
        JSON.stringify({ workspace: ws, blocked_paths: [`${ws}/secrets/*.txt`] }),
      ],
      { encoding: 'utf8' },
    );
    const answers = JSON.parse(out) as Decision[];
    expect(answers.map((a) => a.decision)).toEqual(['deny', 'allow', 'deny', 'deny']);
    expect(answers[0]!.reason).toMatch(/^sensitive-path:configured-path: /);
    expect(answers[2]!.reason).toMatch(/^gate-config-error: /);
    expect(answers[3]!.reason).toMatch(/^sensitive-path:configured-path: /);
  });

  it('warms up on a harmless call that it allows', () => {
    const out = execFileSync(
      PYTHON,
      [
        '-c',
        `import importlib.util, json, sys
spec = importlib.util.spec_from_file_location("g", sys.argv[1])
g = importlib.util.module_from_spec(spec)
spec.loader.exec_module(g)
print(json.dumps(g.decide(g.WARM_UP_EVENT, sys.argv[2])))`,
        GATE_SCRIPTS['sensitive-paths']!,
        join(ROOT, 'hooks-scripts/sensitive-paths/config.json'),
      ],
      { encoding: 'utf8' },
    );
    expect(JSON.parse(out)).toEqual({ decision: 'allow' });
  });
});

describe('audit hook', () => {
  const script = join(ROOT, 'hooks-scripts/audit/audit.py');

  function runAudit(payload: string, state: string): { stdout: string; lines: unknown[] } {
    const stdout = execFileSync(PYTHON, [script], {
      input: payload,
      encoding: 'utf8',
      env: {
        PATH: process.env.PATH ?? '',
        HOOKBOX_STATE_DIR: state,
        HOOKBOX_EVENT: 'post_tool_execution',
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let lines: unknown[] = [];
    try {
      lines = readFileSync(join(state, 'audit.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as unknown);
    } catch {
      lines = [];
    }
    return { stdout, lines };
  }

  it('appends one JSON line per call and prints nothing', () => {
    const state = mkdtempSync(join(scratch, 'audit-'));
    const call = { name: 'code_execution', args: { code: 'exit 3', language: 'bash' } };
    runAudit(
      JSON.stringify({
        tool_call: call,
        environment_id: 'env_a',
        result: { exit_code: 3 },
        error: 'exit 3',
      }),
      state,
    );
    const { stdout, lines } = runAudit(
      JSON.stringify({
        tool_call: { name: 'read_file', args: { path: 'x' } },
        environment_id: 'env_a',
      }),
      state,
    );
    expect(stdout).toBe('');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatchObject({
      environment_id: 'env_a',
      tool: 'code_execution',
      exit_code: 3,
      error: 'exit 3',
    });
    expect(lines[1]).toMatchObject({ tool: 'read_file', args: { path: 'x' } });
    expect((lines[0] as { ts: string }).ts).toMatch(/^\d{4}-\d\d-\d\dT.*Z$/);
  });

  it('never fails the call, even without a usable state dir or with garbage input', () => {
    expect(runAudit('not json', join(scratch, 'no-such-dir')).stdout).toBe('');
    const state = mkdtempSync(join(scratch, 'audit-'));
    expect(runAudit('not json', state).lines).toHaveLength(1);
  });
});

afterAll(() => {
  // The figures quoted in docs/gates.md.
  for (const [gate, t] of Object.entries(tally)) {
    const rate = (a: number, b: number) => (b ? ((100 * a) / b).toFixed(1) : '-');
    console.log(
      `[gates] ${gate}: blocked ${t.blocked}/${t.mustBlock} (${rate(t.blocked, t.mustBlock)}%), ` +
        `false positives ${t.benign - t.allowed}/${t.benign} (${rate(t.benign - t.allowed, t.benign)}%)`,
    );
  }
  rmSync(scratch, { recursive: true, force: true });
});
