// docs/security.md, "Hooks and the workspace": tool code writes /workspace, and hooks start there.
// What tool code plants (a git repository's core.fsmonitor, a Python module, node_modules, a
// Makefile, package.json scripts, a project's formatter) must never run as the hook user: git
// refuses the repository, python and node leave the cwd off their import path, and a handler that
// runs workspace code says `"run_as": "tool"` and runs it with tool code's rights. Planted code
// always tries to write the hook state dir and says who it ran as.
import { describe, expect, it } from 'vitest';
import type { Environment } from '../../src/controller/environment.js';
import { bash, hooksJson, inline, useController, withEnvironment } from './helpers.js';
import { execResultOf } from '../../src/tools/results.js';

const controller = useController();

const STATE_DIR = '/var/lib/hookbox/state';
/** What planted code does, as sh: try the hook state dir, then write who ran it into the workspace. */
const PLANTED_SH = `if (echo x > ${STATE_DIR}/planted) 2>/dev/null; then s=written; else s=refused; fi
echo "uid=$(id -u) state=$s" > /workspace/planted-ran
`;
/** The same in Python. */
const PLANTED_PY = `import os
try:
    open("${STATE_DIR}/planted", "w").close()
    state = "written"
except OSError:
    state = "refused"
with open("/workspace/planted-ran", "w") as out:
    out.write(f"uid={os.getuid()} state={state}\\n")
`;
/** The same in node. */
const PLANTED_JS = `const fs = require('fs');
let state = 'written';
try { fs.writeFileSync('${STATE_DIR}/planted', 'x'); } catch { state = 'refused'; }
try { fs.writeFileSync('/workspace/planted-ran', 'uid=' + process.getuid() + ' state=' + state + '\\n'); } catch {}
`;
/** Run as the hook user after the handler under test: did anything leave a file in the state dir? */
const STATE_CHECK = `if [ -e ${STATE_DIR}/planted ]; then m=yes; else m=no; fi; echo "{\\"decision\\":\\"deny\\",\\"reason\\":\\"state-dir marker $m\\"}"`;

/** Gates on read_file only, so the setup calls (code_execution) run ungated. */
function gates(...handlers: Record<string, unknown>[]) {
  return [
    hooksJson({
      gate: {
        pre_tool_execution: [
          { matcher: 'read_file', hooks: handlers.map((h) => ({ type: 'command', ...h })) },
        ],
      },
    }),
  ];
}

const trigger = { name: 'read_file', args: { path: 'anything' } };
const ALLOW = `echo '{"decision":"allow"}'`;

async function plant(environment: Environment, code: string): Promise<void> {
  const planted = await environment.call(bash(`${code}\necho planted`));
  expect(execResultOf(planted).stderr).toBe('');
  expect(execResultOf(planted).stdout).toMatch(/planted\n$/);
}

async function plantedRan(environment: Environment): Promise<string> {
  const read = await environment.call(bash('cat /workspace/planted-ran 2>/dev/null || echo none'));
  return execResultOf(read).stdout;
}

/** The handler under test (run as tool) allowed, the hook user's check after it found no file in
 * the state dir, and the planted code did run: as tool, refused the state dir. */
async function expectRanAsTool(environment: Environment): Promise<void> {
  const gated = await environment.call(trigger);
  expect(gated.hooks.map((hook) => hook.outcome)).toEqual(['allow', 'deny']);
  expect(gated.reason).toBe('state-dir marker no');
  expect(await plantedRan(environment)).toBe('uid=1000 state=refused\n');
}

describe('programs a hook runs in /workspace obey nothing tool code planted as the hook user', () => {
  it('git: a core.fsmonitor planted in .git/config is refused for the hook user; tool code still uses git', async () => {
    const gate = `git status >/dev/null 2>&1; g=$?\n${STATE_CHECK.replace('state-dir marker', 'git $g, state-dir marker')}\n`;
    await withEnvironment(
      controller,
      {
        sources: [
          ...gates({ command: 'sh /.agents/git-gate.sh' }),
          inline('.agents/git-gate.sh', gate),
        ],
      },
      async (environment) => {
        await plant(
          environment,
          `cat > planted.sh <<'EOF'\n${PLANTED_SH}EOF\n` +
            `git init -q && git add planted.sh && git commit -qm planted && git config core.fsmonitor 'sh /workspace/planted.sh; false' && git status --short`,
        );
        const gated = await environment.call(trigger);
        // 128: "detected dubious ownership"; the planted monitor never ran as the hook user.
        expect(gated.reason).toBe('git 128, state-dir marker no');
        // Tool code's own git in /workspace works (and runs its own monitor, as tool).
        const own = await environment.call(
          bash('git status >/dev/null && git log --format=%s && cat planted-ran'),
        );
        expect(execResultOf(own).stdout).toBe('planted\nuid=1000 state=refused\n');
      },
    );
  });

  it('python3 -m: a module planted in /workspace is not imported by a hook', async () => {
    await withEnvironment(
      controller,
      {
        sources: gates({
          command: `python3 -m planted 2>/dev/null; p=$?; ${STATE_CHECK.replace('state-dir marker', 'python $p, state-dir marker')}`,
        }),
      },
      async (environment) => {
        await plant(environment, `cat > planted.py <<'EOF'\n${PLANTED_PY}EOF`);
        const gated = await environment.call(trigger);
        expect(gated.reason).toBe('python 1, state-dir marker no');
        expect(await plantedRan(environment)).toBe('none\n');
      },
    );
  });

  it('node -e: a package planted in /workspace/node_modules is not loaded by a hook (CommonJS or ES module)', async () => {
    const gate = [
      `c=$(node -e "try { require('leftpad'); console.log('loaded') } catch (e) { console.log(e.code) }")`,
      `e=$(node --input-type=module -e "import 'leftpad'" >/dev/null 2>&1; echo $?)`,
      `a=$(node -e "console.log(require('/workspace/node_modules/leftpad/ok.js'))")`,
      STATE_CHECK.replace(
        'state-dir marker',
        'require $c, import exit $e, absolute $a, state-dir marker',
      ),
    ].join('\n');
    await withEnvironment(
      controller,
      {
        sources: [
          ...gates({ command: 'sh /.agents/node-gate.sh' }),
          inline('.agents/node-gate.sh', gate + '\n'),
        ],
      },
      async (environment) => {
        await plant(
          environment,
          `mkdir -p node_modules/leftpad && cat > node_modules/leftpad/index.js <<'EOF'\n${PLANTED_JS}EOF\n` +
            `echo "module.exports = 'named'" > node_modules/leftpad/ok.js`,
        );
        const gated = await environment.call(trigger);
        // A path the hook names itself still loads: only the search of bare names skips /workspace.
        expect(gated.reason).toBe(
          'require MODULE_NOT_FOUND, import exit 1, absolute named, state-dir marker no',
        );
        expect(await plantedRan(environment)).toBe('none\n');
      },
    );
  });

  it('python3 -m unittest with "run_as": "tool": the planted tests run as tool, not as hook', async () => {
    await withEnvironment(
      controller,
      {
        sources: gates(
          { command: `python3 -m unittest discover -q >/dev/null 2>&1; ${ALLOW}`, run_as: 'tool' },
          { command: STATE_CHECK },
        ),
      },
      async (environment) => {
        await plant(environment, `cat > test_planted.py <<'EOF'\n${PLANTED_PY}EOF`);
        await expectRanAsTool(environment);
      },
    );
  });

  it('make with "run_as": "tool": a planted Makefile runs as tool', async () => {
    await withEnvironment(
      controller,
      {
        sources: gates(
          { command: `make -s check >/dev/null 2>&1; ${ALLOW}`, run_as: 'tool' },
          { command: STATE_CHECK },
        ),
      },
      async (environment) => {
        await plant(
          environment,
          `cat > planted.sh <<'EOF'\n${PLANTED_SH}EOF\nprintf 'check:\\n\\tsh planted.sh\\n' > Makefile`,
        );
        await expectRanAsTool(environment);
      },
    );
  });

  // npm and a formatter come with the `full` template (Debian's npm; docs/templates.md), built on
  // first use.
  it('npm test with "run_as": "tool": planted package.json scripts run as tool', async () => {
    await withEnvironment(
      controller,
      {
        template: 'full',
        sources: gates(
          { command: `npm test --silent >/dev/null 2>&1; ${ALLOW}`, run_as: 'tool' },
          { command: STATE_CHECK },
        ),
      },
      async (environment) => {
        await plant(
          environment,
          `cat > planted.sh <<'EOF'\n${PLANTED_SH}EOF\necho '{"name":"p","version":"1.0.0","scripts":{"test":"sh planted.sh"}}' > package.json`,
        );
        await expectRanAsTool(environment);
      },
    );
  }, 600_000);

  it('a formatter with "run_as": "tool": the project\'s planted prettier (npx) runs as tool', async () => {
    await withEnvironment(
      controller,
      {
        template: 'full',
        sources: gates(
          {
            command: `npx --no-install prettier --check . >/dev/null 2>&1; ${ALLOW}`,
            run_as: 'tool',
          },
          { command: STATE_CHECK },
        ),
      },
      async (environment) => {
        await plant(
          environment,
          `mkdir -p node_modules/prettier node_modules/.bin && cat > node_modules/prettier/cli.js <<'EOF'\n#!/usr/bin/env node\n${PLANTED_JS}EOF\n` +
            `chmod +x node_modules/prettier/cli.js && ln -s ../prettier/cli.js node_modules/.bin/prettier\n` +
            `echo '{"name":"p","version":"1.0.0","devDependencies":{"prettier":"*"}}' > package.json\n` +
            `echo '{"name":"prettier","version":"3.0.0","bin":{"prettier":"cli.js"}}' > node_modules/prettier/package.json`,
        );
        await expectRanAsTool(environment);
      },
    );
  }, 600_000);
});
