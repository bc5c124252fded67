import type { ToolCall, JsonObject } from '../../tools/types.js';
import { failedPre, type HandlerRun, type PreDecision } from '../decision.js';
import { raw, text } from './answer-json.js';
import type { HandlerTerms } from './types.js';

/** Pieces of the dialects' payloads and answers that several agents share (docs/dialects.md). */

/** The result as the text a model would be shown: a command's output, else the result's JSON. */
export function resultText(call: ToolCall, result: JsonObject): string {
  if (call.name === 'code_execution')
    return [result.stdout, result.stderr]
      .filter((part) => typeof part === 'string' && part !== '')
      .join('');
  if (typeof result.content === 'string') return result.content;
  return JSON.stringify(result);
}

/** Whether the tool failed, as hookbox's result says. */
export function failed(result: JsonObject): boolean {
  return (
    typeof result.error === 'string' ||
    (typeof result.exit_code === 'number' && result.exit_code !== 0)
  );
}

/**
 * Exit code 2 as a block whose reason is stderr (Claude Code, Codex, Gemini CLI, Cursor, OpenHands).
 * `requireReason`: Codex counts an exit 2 with empty stderr as a failed hook, not a block.
 */
export function exitTwo(
  run: HandlerRun,
  fallback: string,
  requireReason = false,
): PreDecision | undefined {
  if (run.exit_code !== 2 || run.timed_out || run.failure !== undefined) return undefined;
  const said = text(run.stderr.trim());
  if (!said && requireReason) return undefined;
  return { outcome: 'deny', blocks: true, reason: said?.trim() ?? fallback, ...raw(run.stderr) };
}

/** A failed run (other exit codes, timeouts, crashes), read by docs/contract.md §6. */
export function failedRun(run: HandlerRun, handler: HandlerTerms): PreDecision | undefined {
  const failed = failedPre(run, handler);
  return failed ? { ...failed, ...raw(run.stderr || run.stdout) } : undefined;
}
