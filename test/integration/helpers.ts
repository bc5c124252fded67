import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import type { InlineSource } from '../../src/config/sources.js';
import { Controller } from '../../src/controller/controller.js';
import type { Environment } from '../../src/controller/environment.js';
import type { EnvironmentOptions } from '../../src/controller/environment-options.js';
import { createLogger, type Logger } from '../../src/record/logger.js';
import { buildTemplate } from '../../src/templates/template-build.js';

/**
 * One controller per test file (audit logs in a temp folder); its environments go at the end.
 * The tests written for the core runtime call the 2026-05 tools (`read_file`, `write_file`,
 * `list_files`), so environments made through this controller speak 2026-05 unless the options name
 * a `vocabulary`; the library's own default is 2026-09.
 */
export function useController(): () => Promise<Controller> {
  let started: Promise<Controller> | undefined;
  afterAll(async () => {
    if (started) await (await started).close();
  });
  return () => {
    const logger = createLogger({ level: process.env.HOOKBOX_LOG_LEVEL ?? 'silent' });
    started ??= Controller.start({
      home: mkdtempSync(join(tmpdir(), 'hookbox-test-')),
      logger,
    }).then(async (controller) => {
      const template = await testTemplate(controller, logger);
      const create = controller.createEnvironment.bind(controller);
      controller.createEnvironment = (options = {}) =>
        create({ vocabulary: '2026-05', ...(template ? { template } : {}), ...options });
      return controller;
    });
    return started;
  };
}

/**
 * `HOOKBOX_TEST_TEMPLATE=NAME` runs a test file's environments on the template built from
 * test/templates/NAME/ (built once, then found by its content hash): the same tests, on a template
 * (docs/templates.md, "Testing a template"). `npm run test:template` runs the isolation suite so.
 */
async function testTemplate(controller: Controller, logger: Logger): Promise<string | undefined> {
  const name = process.env.HOOKBOX_TEST_TEMPLATE;
  if (!name) return undefined;
  await buildTemplate(controller.client, logger, controller.image, {
    name: `test-${name}`,
    path: join(process.cwd(), 'test', 'templates', name),
  });
  return `test-${name}`;
}

export function inline(target: string, content: string): InlineSource {
  return { type: 'inline', target, content };
}

/** A hooks.json source from an object. */
export function hooksJson(config: unknown): InlineSource {
  return inline('.agents/hooks.json', JSON.stringify(config, null, 2));
}

/** A rule with one command handler per command given. */
export function rule(
  matcher: string | undefined,
  ...commands: (string | { command: string; timeout?: number; on_error?: 'allow' | 'deny' })[]
) {
  return {
    ...(matcher === undefined ? {} : { matcher }),
    hooks: commands.map((command) =>
      typeof command === 'string' ? { type: 'command', command } : { type: 'command', ...command },
    ),
  };
}

/** Runs `body` in a fresh environment and deletes it afterwards, whatever happens. */
export async function withEnvironment<T>(
  controller: () => Promise<Controller>,
  options: EnvironmentOptions,
  body: (environment: Environment) => Promise<T>,
): Promise<T> {
  const environment = await (await controller()).createEnvironment(options);
  try {
    return await body(environment);
  } finally {
    await environment.delete();
  }
}

export const bash = (code: string) => ({
  name: 'code_execution',
  args: { code, language: 'bash' },
});
