// environment.env (docs/environments.md, "Environment variables") against real containers: tool
// code gets the variables, hooks do not, bad names and sizes are refused before any container.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Controller } from '../../src/controller/controller.js';
import { UserError } from '../../src/errors/index.js';
import { createLogger } from '../../src/record/logger.js';
import { startServer, type RunningServer } from '../../src/server/index.js';
import { codeCall, scripted } from '../unit/interactions/gemini-requests.js';
import { bash, hooksJson, inline, rule, useController, withEnvironment } from './helpers.js';
import { ownResources } from './cli-helpers.js';
import { apiErrorOf } from './api-error.js';
import type { InteractionBody } from './api-helpers.js';
import { execResultOf } from '../../src/tools/results.js';

const logger = createLogger({ level: process.env.HOOKBOX_LOG_LEVEL ?? 'silent' });

/** Denies a call when the hook itself can see GREETING: hooks must not get tool env. */
const HOOK_SEES = `import json, os
if "GREETING" in os.environ:
    print(json.dumps({"decision": "deny", "reason": "the hook saw GREETING"}))
`;

describe('environment.env in the library', () => {
  const controller = useController();

  it('tool code gets the variables; hooks do not', async () => {
    await withEnvironment(
      controller,
      {
        env: { GREETING: 'hello', MULTI: 'a b\nc "d"' },
        sources: [
          hooksJson({ probe: { pre_tool_execution: [rule('*', 'python3 /.agents/sees.py')] } }),
          inline('.agents/sees.py', HOOK_SEES),
        ],
      },
      async (environment) => {
        const outcome = await environment.call(
          bash('printf "%s|%s|%s" "$GREETING" "$MULTI" "$HOME"'),
        );
        expect(outcome.blocked).toBe(false);
        expect(execResultOf(outcome).stdout).toBe('hello|a b\nc "d"|/workspace');
      },
    );
  });

  it('refuses bad names, names the sandbox sets and oversized values, before any container', async () => {
    const started = await controller();
    const before = await ownResources();
    const cases: [Record<string, unknown>, string][] = [
      [{ '1BAD': 'x' }, 'env.1BAD'],
      [{ 'A-B': 'x' }, 'env.A-B'],
      [{ PATH: '/tmp' }, 'env.PATH'],
      [{ HOOKBOX_X: 'x' }, 'env.HOOKBOX_X'],
      [{ OK: 5 }, 'env.OK'],
      [{ BIG: 'x'.repeat(40 * 1024) }, 'env.BIG'],
    ];
    for (const [env, field] of cases) {
      const error = await started
        .createEnvironment({ env: env as Record<string, string> })
        .catch((e: unknown) => e);
      expect(error, field).toBeInstanceOf(UserError);
      expect((error as UserError).details.field, field).toBe(field);
    }
    expect(await ownResources()).toEqual(before);
  });
});

describe('environment.env across a controller restart', () => {
  it('a re-attached environment still gives tool code its variables (they are in the state file)', async () => {
    const home = mkdtempSync(join(tmpdir(), 'hookbox-env-'));
    const stateFile = join(home, 'state.sqlite');
    const first = await Controller.start({ home, stateFile, logger, startEngine: false });
    const made = await first.createEnvironment({ env: { GREETING: 'kept' } });
    await first.detach();
    const second = await Controller.start({ home, stateFile, logger, startEngine: false });
    try {
      const outcome = await second.getEnvironment(made.id).call(bash('printf %s "$GREETING"'));
      expect(execResultOf(outcome).stdout).toBe('kept');
    } finally {
      await second.close();
    }
  });
});

describe('environment.env over HTTP', () => {
  let server: RunningServer | undefined;
  afterAll(async () => {
    await server?.close();
  });

  it('a new environment takes env; a bad name is a 400 naming it', async () => {
    const controller = await Controller.start({
      home: mkdtempSync(join(tmpdir(), 'hookbox-env-')),
      logger,
      startEngine: false,
    });
    server = await startServer({
      host: '127.0.0.1',
      port: 0,
      apiKeys: ['env-key-12'],
      logger,
      controller,
    });
    const post = (body: unknown) =>
      fetch(`${server!.url}/v1beta/interactions`, {
        method: 'POST',
        headers: { 'x-goog-api-key': 'env-key-12', 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const ok = await post(
      scripted(
        {
          agent: 'scripted',
          input: [],
          environment: { type: 'remote', env: { GREETING: 'from http' } },
        },
        codeCall('printf %s "$GREETING"'),
      ),
    );
    const interaction = (await ok.json()) as InteractionBody;
    expect(interaction.steps.at(-1)?.structured_result).toMatchObject({ stdout: 'from http' });

    const bad = await post(
      scripted(
        { agent: 'scripted', input: [], environment: { type: 'remote', env: { PATH: '/x' } } },
        codeCall('true'),
      ),
    );
    expect(bad.status).toBe(400);
    expect(apiErrorOf(await bad.json()).field).toBe('environment.env.PATH');

    const again = await post(
      scripted(
        {
          agent: 'scripted',
          input: [],
          environment: {
            type: 'remote',
            environment_id: interaction.environment_id,
            env: { OTHER: 'x' },
          },
        },
        codeCall('true'),
      ),
    );
    expect(again.status).toBe(400);
    expect(apiErrorOf(await again.json()).field).toBe('environment.env');
  });
});
