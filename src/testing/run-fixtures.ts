import { existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileSource, readSourcesDir } from '../cli/sources-dir.js';
import type { InlineSource } from '../config/sources.js';
import type { Controller } from '../environments/controller.js';
import type { CallOutcome, Environment } from '../environments/environment.js';
import { toHookboxError, UserError } from '../errors/index.js';
import { packageRoot } from '../paths.js';
import { pathsToProbe, unmetExpectations, type PathProbe } from './expectations.js';
import type { FixtureCase } from './fixture-schema.js';
import type { LoadedFixture } from './load-fixtures.js';

export interface CaseResult {
  fixture: string;
  file: string;
  name: string;
  /** `gated`: the case against its gates; `containment`: a destructive case with the gate off. */
  mode: 'gated' | 'containment';
  passed: boolean;
  failures: string[];
  durationMs: number;
  blocked?: boolean;
}

export interface RunOptions {
  /** Environments at a time. @default 4 */
  jobs?: number;
  /** Also run destructive cases with the gate off and check containment. @default true */
  containment?: boolean;
  /** Where shipped gates live. @default hooks-scripts/ of this checkout */
  gatesDir?: string;
  onResult?: (result: CaseResult, done: number, total: number) => void;
  /**
   * Keep each case's audit log. A case's outcome is in the results (and JUnit), so its log is
   * removed with its environment: a fixture run leaves no logs behind (docs/gates.md). @default false
   */
  keepAuditLogs?: boolean;
}

/** Deletes a case's environment, and its audit log unless asked to keep it. */
async function finish(environment: Environment, keepAuditLogs: boolean): Promise<void> {
  try {
    await environment.delete();
  } finally {
    if (!keepAuditLogs) rmSync(environment.auditLogPath, { force: true });
  }
}

const DEFAULT_TOOL_TIMEOUT_MS = 20_000;
const CONTAINMENT_TIMEOUT_MS = 10_000;

/**
 * The state of everything outside /workspace that tool code could see: file tree metadata of the
 * root filesystem and the hashes of /.agents. Compared before and after a destructive call.
 */
const FINGERPRINT = [
  "{ find / -xdev \\( -path /proc -o -path /sys -o -path /dev -o -path /workspace \\) -prune -o -printf '%p %y %s %m %U %T@\\n' 2>/dev/null | sort;",
  '  find /.agents -type f -exec sha256sum {} + 2>/dev/null | sort; } | sha256sum',
].join('\n');

function gateSources(gatesDir: string, gate: string): InlineSource[] {
  const dir = join(gatesDir, gate);
  if (!existsSync(dir) || !statSync(dir).isDirectory()) {
    throw new UserError('invalid_argument', `gate ${JSON.stringify(gate)}: no folder ${dir}`, {
      details: { field: 'gate' },
    });
  }
  const sources: InlineSource[] = [];
  const walk = (folder: string): void => {
    for (const name of readdirSync(folder).sort()) {
      if (name === '__pycache__' || name === 'tests') continue;
      const full = join(folder, name);
      if (statSync(full).isDirectory()) walk(full);
      else {
        const path = relative(dir, full).split(sep).join('/');
        sources.push(fileSource(full, `.agents/hooks-scripts/${gate}/${path}`, 'gate'));
      }
    }
  };
  walk(dir);
  const hooks = join(dir, 'hooks.json');
  if (existsSync(hooks)) sources.push(fileSource(hooks, '.agents/hooks.json', 'gate'));
  return sources;
}

/** The sources of a fixture's environment; without the gates when `gated` is false. */
export function fixtureSources(
  loaded: LoadedFixture,
  gatesDir: string,
  gated: boolean,
): InlineSource[] {
  const { fixture, file } = loaded;
  const sources: InlineSource[] = [];
  if (fixture.gate) sources.push(...gateSources(gatesDir, fixture.gate));
  if (fixture.sources?.dir)
    sources.push(...readSourcesDir(resolve(dirname(file), fixture.sources.dir), 'sources.dir'));
  for (const source of fixture.sources?.inline ?? [])
    sources.push({
      type: 'inline',
      target: source.target,
      content: source.content,
      ...(source.encoding ? { encoding: source.encoding } : {}),
    });
  for (const [path, content] of Object.entries(fixture.workspace_files ?? {}))
    sources.push({ type: 'inline', target: `workspace/${path}`, content });
  return gated
    ? sources
    : sources.filter((source) => source.target.replace(/^\//, '') !== '.agents/hooks.json');
}

async function probePaths(
  environment: Environment,
  paths: string[],
): Promise<Map<string, PathProbe>> {
  const found = new Map<string, PathProbe>();
  for (const path of paths) {
    const answer = await environment.sandbox.request(
      'file',
      { tool: 'read_file', args: { path }, max_read_bytes: 1 << 20 },
      30_000,
    );
    if ('content' in answer) found.set(path, { exists: true, content: answer.content });
    else
      found.set(path, {
        exists: !/No such file or directory/.test('error' in answer ? answer.error : ''),
      });
  }
  return found;
}

async function fingerprint(environment: Environment): Promise<string> {
  const answer = await environment.sandbox.request(
    'run_code',
    {
      code: FINGERPRINT,
      language: 'bash',
      timeout_ms: 60_000,
      output_cap_bytes: 4096,
      background_processes: false,
    },
    90_000,
  );
  return answer.stdout.trim();
}

/** An environment for one run of a case: with its gates, or (containment) without them. */
function fixtureEnvironment(
  controller: Controller,
  loaded: LoadedFixture,
  gatesDir: string,
  mode: CaseResult['mode'],
): Promise<Environment> {
  const timeoutMs =
    loaded.fixture.tool_timeout_ms ??
    (mode === 'gated' ? DEFAULT_TOOL_TIMEOUT_MS : CONTAINMENT_TIMEOUT_MS);
  return controller.createEnvironment({
    sources: fixtureSources(loaded, gatesDir, mode === 'gated'),
    vocabulary: loaded.fixture.vocabulary ?? '2026-05',
    ...(loaded.fixture.template !== undefined ? { template: loaded.fixture.template } : {}),
    toolTimeoutMs: mode === 'gated' ? timeoutMs : Math.min(timeoutMs, CONTAINMENT_TIMEOUT_MS),
  });
}

async function runGated(
  controller: Controller,
  loaded: LoadedFixture,
  testCase: FixtureCase,
  gatesDir: string,
  keepAuditLogs: boolean,
): Promise<Omit<CaseResult, 'durationMs'>> {
  const base = {
    fixture: loaded.fixture.name,
    file: loaded.file,
    name: testCase.name,
    mode: 'gated' as const,
  };
  const environment = await fixtureEnvironment(controller, loaded, gatesDir, 'gated');
  try {
    const outcome: CallOutcome = await environment.call(testCase.call);
    const probes = await probePaths(environment, pathsToProbe(testCase.expect));
    const failures = unmetExpectations(testCase.expect, outcome, (path) => probes.get(path));
    return { ...base, passed: failures.length === 0, failures, blocked: outcome.blocked };
  } finally {
    await finish(environment, keepAuditLogs);
  }
}

async function runContained(
  controller: Controller,
  loaded: LoadedFixture,
  testCase: FixtureCase,
  gatesDir: string,
  keepAuditLogs: boolean,
): Promise<Omit<CaseResult, 'durationMs'>> {
  const base = {
    fixture: loaded.fixture.name,
    file: loaded.file,
    name: testCase.name,
    mode: 'containment' as const,
  };
  const environment = await fixtureEnvironment(controller, loaded, gatesDir, 'containment');
  const failures: string[] = [];
  try {
    const before = await fingerprint(environment);
    try {
      await environment.call(testCase.call);
    } catch (error) {
      failures.push(
        `with the gate off, the call broke the environment: ${toHookboxError(error).message}`,
      );
    }
    if (failures.length === 0) {
      const alive = await environment
        .call({ name: 'code_execution', args: { code: 'echo alive' } })
        .catch((error: unknown) => toHookboxError(error));
      if (alive instanceof Error || alive.result?.stdout !== 'alive\n') {
        failures.push(
          `with the gate off, the environment stopped working afterwards${alive instanceof Error ? `: ${alive.message}` : ''}`,
        );
      } else {
        const after = await fingerprint(environment);
        if (after !== before)
          failures.push(
            'with the gate off, something outside /workspace changed (file tree or /.agents fingerprint differs)',
          );
      }
    }
    return { ...base, passed: failures.length === 0, failures };
  } finally {
    await finish(environment, keepAuditLogs).catch(() => {});
  }
}

/** Runs every case (and, for destructive ones, the containment check), `jobs` environments at a time. */
export async function runFixtures(
  controller: Controller,
  fixtures: LoadedFixture[],
  options: RunOptions = {},
): Promise<CaseResult[]> {
  const gatesDir = options.gatesDir ?? join(packageRoot(), 'hooks-scripts');
  const keep = options.keepAuditLogs ?? false;
  const tasks: { loaded: LoadedFixture; testCase: FixtureCase; mode: CaseResult['mode'] }[] = [];
  for (const loaded of fixtures) {
    fixtureSources(loaded, gatesDir, true);
    for (const testCase of loaded.fixture.cases) {
      tasks.push({ loaded, testCase, mode: 'gated' });
      if (testCase.destructive && (options.containment ?? true))
        tasks.push({ loaded, testCase, mode: 'containment' });
    }
  }
  const results = new Array<CaseResult>(tasks.length);
  let next = 0;
  let done = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const index = next++;
      const task = tasks[index]!;
      const started = performance.now();
      let result: Omit<CaseResult, 'durationMs'>;
      try {
        result =
          task.mode === 'gated'
            ? await runGated(controller, task.loaded, task.testCase, gatesDir, keep)
            : await runContained(controller, task.loaded, task.testCase, gatesDir, keep);
      } catch (error) {
        const failure = toHookboxError(error);
        if (failure.kind === 'user') throw failure;
        result = {
          fixture: task.loaded.fixture.name,
          file: task.loaded.file,
          name: task.testCase.name,
          mode: task.mode,
          passed: false,
          failures: [`runtime failure: ${failure.message}`],
        };
      }
      results[index] = { ...result, durationMs: Math.round(performance.now() - started) };
      options.onResult?.(results[index], ++done, tasks.length);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, options.jobs ?? 4) }, worker));
  return results;
}
