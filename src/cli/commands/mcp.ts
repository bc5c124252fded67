import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { placeSources } from '../../config/sources.js';
import { Controller } from '../../controller/controller.js';
import type { Environment } from '../../controller/environment.js';
import { hooksConfigOf } from '../../hooks/hooks-config-of.js';
import { UserError } from '../../errors/index.js';
import { mcpServerFor } from '../../mcp/server.js';
import { packageVersion } from '../../paths.js';
import {
  DEFAULT_VOCABULARY,
  isVocabularyId,
  VOCABULARIES,
  type VocabularyId,
} from '../../tools/registry.js';
import type { CliIo } from '../io.js';
import { removingOnSignal } from '../interrupt.js';
import { runtimeOption } from '../runtime-option.js';
import { readSourcesDir } from '../sources-dir.js';
import { parseTimeout } from './call.js';

export interface McpCommandOptions {
  sources: string;
  template?: string;
  vocabulary?: string;
  toolTimeoutMs?: string;
  /** `--runtime`: the sandbox's OCI runtime (runsc: gVisor). */
  runtime?: string;
}

function vocabularyOf(value: string | undefined): VocabularyId {
  if (value === undefined) return DEFAULT_VOCABULARY;
  if (!isVocabularyId(value))
    throw new UserError(
      'invalid_argument',
      `--vocabulary: must be one of ${Object.keys(VOCABULARIES).join(', ')}`,
      { details: { field: '--vocabulary' } },
    );
  return value;
}

/**
 * `hookbox mcp`: an MCP server on stdin/stdout, the form agents' config files take (docs/mcp.md).
 * Everything that can be checked is checked before the server answers; the environment is made
 * at the first request that needs it and removed when the client closes stdin (or on SIGTERM).
 * stdout carries MCP messages only: hookbox's log goes to stderr.
 */
export async function mcpCommand(options: McpCommandOptions, io: CliIo): Promise<number> {
  const sources = readSourcesDir(options.sources);
  hooksConfigOf(placeSources(sources));
  const vocabulary = vocabularyOf(options.vocabulary);
  const toolTimeoutMs = parseTimeout(options.toolTimeoutMs);
  const controller = await Controller.start(runtimeOption(options.runtime));
  // An unknown template is bad input (exit 2), named by the option that gave it.
  await controller.templates.resolve(options.template, '--template');
  let made: Promise<Environment> | undefined;
  const environment = () =>
    (made ??= controller.createEnvironment({
      sources,
      vocabulary,
      ...(toolTimeoutMs === undefined ? {} : { toolTimeoutMs }),
      ...(options.template ? { template: options.template } : {}),
    }));
  const server = mcpServerFor({
    vocabulary,
    environment,
    decider: `the user of ${process.env.USER ?? 'this machine'}`,
    version: packageVersion(),
  });
  const transport = new StdioServerTransport();
  await removingOnSignal(controller, io, async () => {
    const closed = new Promise<void>((resolve) => {
      process.stdin.once('end', resolve);
      process.stdin.once('close', resolve);
      transport.onclose = resolve;
    });
    await server.connect(transport);
    await closed;
  });
  await server.close().catch(() => {});
  // The environment goes with the session; its audit log stays (docs/mcp.md, "Lifecycle").
  await controller.close();
  return 0;
}
