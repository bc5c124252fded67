import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { placeSources } from '../../config/sources.js';
import { describeIssues } from '../../errors/zod-issues.js';
import { Controller } from '../../controller/controller.js';
import type { CallOutcome } from '../../controller/environment.js';
import { hooksConfigOf } from '../../hooks/hooks-config-of.js';
import { toHookboxError, UserError } from '../../errors/index.js';
import {
  isVocabularyId,
  resolveToolCall,
  VOCABULARIES,
  vocabularyForCalls,
  type VocabularyId,
} from '../../tools/registry.js';
import type { ToolCall } from '../../tools/types.js';
import { callHeader, callJson, callText } from '../format.js';
import { buildProgressFor, createProgress } from '../progress.js';
import type { CliIo } from '../io.js';
import { runtimeOption } from '../runtime-option.js';
import { removingOnSignal } from '../interrupt.js';
import { visibleBlock } from '../../interactions/visible-text.js';
import { readSourcesDir } from '../sources-dir.js';

export interface CallCommandOptions {
  sources: string;
  tool?: string;
  args?: string;
  calls?: string;
  json?: boolean;
  vocabulary?: string;
  toolTimeoutMs?: string;
  template?: string;
  /** `--runtime`: the sandbox's OCI runtime (runsc: gVisor). */
  runtime?: string;
}

const toolCallSchema = z.strictObject({
  name: z.string({ error: 'must be a string' }),
  args: z.record(z.string(), z.unknown(), { error: 'must be a JSON object' }).default({}),
});
const callsFileSchema = z.array(toolCallSchema, {
  error: 'must be a JSON array of {"name", "args"} objects',
});

function parseJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new UserError(
      'invalid_argument',
      `${what}: not valid JSON (${(error as Error).message})`,
      { details: { field: what } },
    );
  }
}

function readCalls(options: CallCommandOptions): { calls: ToolCall[]; batch: boolean } {
  if (options.calls !== undefined && (options.tool !== undefined || options.args !== undefined)) {
    throw new UserError(
      'invalid_argument',
      'give either --tool with --args, or --calls, not both',
      { details: { field: '--calls' } },
    );
  }
  if (options.calls !== undefined) {
    let text: string;
    try {
      text = readFileSync(options.calls, 'utf8');
    } catch {
      throw new UserError('invalid_argument', `--calls: cannot read ${options.calls}`, {
        details: { field: '--calls' },
      });
    }
    const parsed = callsFileSchema.safeParse(parseJson(text, `--calls ${options.calls}`));
    if (!parsed.success) {
      const problem = describeIssues(parsed.error.issues)[0]!;
      throw new UserError(
        'invalid_argument',
        `--calls ${options.calls}: ${problem.path}: ${problem.message}`,
        { details: { field: '--calls' } },
      );
    }
    return { calls: parsed.data, batch: true };
  }
  if (options.tool === undefined) {
    throw new UserError('invalid_argument', 'give --tool NAME (with --args JSON) or --calls FILE', {
      details: { field: '--tool' },
    });
  }
  const args = options.args === undefined ? {} : parseJson(options.args, '--args');
  if (args === null || typeof args !== 'object' || Array.isArray(args)) {
    throw new UserError(
      'invalid_argument',
      '--args: must be a JSON object, e.g. \'{"code": "echo hi"}\'',
      { details: { field: '--args' } },
    );
  }
  return { calls: [{ name: options.tool, args: args as Record<string, unknown> }], batch: false };
}

/**
 * `--vocabulary`, or without it the vocabulary the calls are written in: the default (2026-09) unless a
 * call names a tool only another vocabulary has (`read_file` → 2026-05).
 */
function parseVocabulary(value: string | undefined, calls: ToolCall[]): VocabularyId {
  if (value === undefined) return vocabularyForCalls(calls);
  if (!isVocabularyId(value)) {
    throw new UserError(
      'invalid_argument',
      `--vocabulary: must be one of ${Object.keys(VOCABULARIES).join(', ')}`,
      { details: { field: '--vocabulary' } },
    );
  }
  return value;
}

/** `--tool-timeout-ms`: a positive whole number of milliseconds, or undefined. */
export function parseTimeout(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1) {
    throw new UserError(
      'invalid_argument',
      '--tool-timeout-ms: must be a positive whole number of milliseconds',
      { details: { field: '--tool-timeout-ms' } },
    );
  }
  return number;
}

/**
 * `hookbox call`: one environment from DIR, the call(s) through its gates, the outcomes, then the
 * environment removed. Everything that can be checked is checked before a container is made.
 */
export async function callCommand(options: CallCommandOptions, io: CliIo): Promise<number> {
  const sources = readSourcesDir(options.sources);
  const placed = placeSources(sources);
  hooksConfigOf(placed);
  const toolTimeoutMs = parseTimeout(options.toolTimeoutMs);
  const { calls, batch } = readCalls(options);
  const vocabulary = parseVocabulary(options.vocabulary, calls);
  calls.forEach((call, index) => {
    try {
      resolveToolCall(call, vocabulary);
    } catch (error) {
      if (error instanceof UserError && batch) {
        throw new UserError(error.code, `--calls[${index}]: ${error.message}`, {
          details: error.details,
        });
      }
      throw error;
    }
  });

  // An image or a shipped template built on demand says so, a line per stage (docs/console.md).
  const progress = createProgress(io, options);
  const controller = await Controller.start({
    ...runtimeOption(options.runtime),
    onProgress: buildProgressFor(io, progress),
    // Retention applies where logs are written (docs/operations.md, "Audit logs").
    auditRetention: {},
  });
  // An unknown template is bad input (exit 2), named by the option that gave it.
  await controller.templates.resolve(options.template, '--template');
  const outcomes: CallOutcome[] = [];
  let failure: unknown;
  await removingOnSignal(controller, io, async () => {
    const environment = await controller.createEnvironment({
      sources,
      vocabulary,
      toolTimeoutMs,
      ...(options.template ? { template: options.template } : {}),
    });
    try {
      for (const call of calls) {
        // Without --json, code_execution's output is printed as it comes (docs/environments.md,
        // "Live output"); the summary after it then leaves the output out.
        let live = false;
        // The header comes first, so live output sits under the call it belongs to.
        if (!options.json) io.stdout(callHeader(call));
        const outcome = await environment.call(
          call,
          options.json
            ? {}
            : {
                // Tool output is untrusted: control characters are shown, never obeyed.
                onStdout: (chunk) => {
                  live = true;
                  io.stdout(visibleBlock(chunk));
                },
                onStderr: (chunk) => {
                  live = true;
                  io.stderr(visibleBlock(chunk));
                },
              },
        );
        outcomes.push(outcome);
        if (!options.json) io.stdout(callText(outcome, { outputShown: live, headerShown: true }));
      }
    } catch (error) {
      failure = error;
    } finally {
      await environment.delete().catch((error: unknown) => {
        failure ??= error;
      });
    }
  });
  if (options.json) {
    const shaped = outcomes.map(callJson);
    io.stdout(JSON.stringify(batch ? shaped : (shaped[0] ?? null), null, 2) + '\n');
  }
  if (failure !== undefined) throw toHookboxError(failure);
  return 0;
}
