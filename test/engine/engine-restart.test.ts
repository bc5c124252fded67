import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Controller } from '../../src/controller/controller.js';
import { createLogger } from '../../src/record/logger.js';
import { execResultOf } from '../../src/tools/results.js';

// Runs alone, after every other test (vitest project "engine"): it restarts the Docker engine.

const liveRestore = () =>
  execFileSync('docker', ['info', '--format', '{{.LiveRestoreEnabled}}']).toString().trim() ===
  'true';

async function restartEngine(): Promise<void> {
  spawnSync('pkill', ['-TERM', '-x', 'dockerd']);
  for (let i = 0; i < 120 && spawnSync('pgrep', ['-x', 'dockerd']).status === 0; i++)
    await new Promise((done) => setTimeout(done, 250));
  execFileSync('bash', [resolve('scripts/ensure-engine.sh')], {
    env: { ...process.env, QUIET: '1' },
  });
}

let controller: Controller | undefined;
afterAll(() => controller?.close());

const gate = JSON.stringify({
  gate: {
    pre_tool_execution: [
      {
        matcher: 'code_execution',
        hooks: [
          {
            type: 'command',
            command: `python3 -c 'import json,sys; c=json.load(sys.stdin)["tool_call"]["args"]["code"]; print(json.dumps({"decision": "deny", "reason": "no"} if "FORBIDDEN" in c else {"decision": "allow"}))'`,
          },
        ],
      },
    ],
  },
});

describe('a Docker engine restart', () => {
  it('the controller recovers without a restart of its own: environments are re-attached, new ones work', async () => {
    // The project's scripts start dockerd with --live-restore; one started otherwise is restarted so.
    if (!liveRestore()) await restartEngine();
    expect(liveRestore()).toBe(true);
    controller = await Controller.start({
      logger: createLogger({ level: 'silent' }),
      home: mkdtempSync(join(tmpdir(), 'hookbox-engine-')),
    });
    const environment = await controller.createEnvironment({
      vocabulary: '2026-05',
      sources: [{ type: 'inline', target: '.agents/hooks.json', content: gate }],
    });
    await environment.call({
      name: 'write_file',
      args: { path: 'kept.txt', content: 'still here' },
    });

    await restartEngine();

    const after = await environment.call({ name: 'read_file', args: { path: 'kept.txt' } });
    expect(after.result).toEqual({ content: 'still here' });
    expect(
      (await environment.call({ name: 'code_execution', args: { code: 'echo FORBIDDEN' } }))
        .blocked,
    ).toBe(true);
    const fresh = await controller.createEnvironment({ vocabulary: '2026-05' });
    expect(
      execResultOf(await fresh.call({ name: 'code_execution', args: { code: 'echo new' } })).stdout,
    ).toBe('new\n');
  }, 240_000);
});
