import {
  failureOf,
  undecided,
  type HandlerRun,
  type PostDecision,
  type PreDecision,
} from '../decision.js';
import { object, raw, text, type Json } from './answer-json.js';
import { sessionIdOf } from './claude-code.js';
import { failed, failedRun, resultText } from './payload-parts.js';
import { renamedVocabulary } from './renamed-tools.js';
import type { Dialect, DialectCallContext, HandlerTerms } from './types.js';

/**
 * Gemini CLI hooks (docs/dialects.md, "Gemini CLI"): `BeforeTool` / `AfterTool` in
 * `.gemini/settings.json`, the snake_case stdin of its hooks reference, and its answers as the
 * current runner reads them (docs/agent-dialects.md, "Gemini CLI"): stdout, or stderr when stdout
 * is empty, whatever the exit code; JSON there is the answer (`decision` allow / deny / block / ask,
 * `continue: false`, `hookSpecificOutput.tool_input` merged over the arguments); plain text blocks
 * on an exit code other than 0 and 1.
 */

export const geminiCliTools = renamedVocabulary({
  tools: {
    Bash: 'run_shell_command',
    Read: 'read_file',
    Write: 'write_file',
    Edit: 'replace',
    LS: 'list_directory',
    Glob: 'glob',
    Grep: 'grep_search',
  },
  fields: {
    Bash: { command: 'command' },
    Read: { file_path: 'file_path' },
    Write: { file_path: 'file_path', content: 'content' },
    Edit: { file_path: 'file_path', old_string: 'old_string', new_string: 'new_string' },
    LS: { path: 'dir_path' },
    Glob: { pattern: 'pattern', path: 'dir_path' },
    Grep: { pattern: 'pattern', path: 'dir_path' },
  },
});

const DEFAULT_DENY_REASON = 'Blocked by a BeforeTool hook.';

function base(context: DialectCallContext, event: 'BeforeTool' | 'AfterTool') {
  const shown = geminiCliTools.show(context.call);
  return {
    session_id: sessionIdOf(context.environmentId),
    cwd: '/workspace',
    hook_event_name: event,
    timestamp: new Date().toISOString(),
    tool_name: shown.name,
    tool_input: shown.input,
  };
}

/** One JSON object, or a JSON string holding one (Gemini CLI parses a string answer twice). */
function answerJson(said: string): Json | undefined {
  const once = jsonValue(said);
  return object(typeof once === 'string' ? jsonValue(once) : once);
}

function jsonValue(said: string): unknown {
  try {
    return JSON.parse(said);
  } catch {
    return undefined;
  }
}

/**
 * Gemini CLI's runner (hookRunner.ts since 0.52) reads `stdout.trim() || stderr.trim()` whatever
 * the exit code: JSON there is the answer; plain text is a message on exit 0, a warning on exit 1,
 * and a block with the text as its reason on any other code. Exit 2 always blocks here, as its
 * hooks reference says, even where that runner lets a silent exit 2 through (docs/dialects.md,
 * "Decisions where the issue was silent").
 */
function decidePre(run: HandlerRun, handler: HandlerTerms): PreDecision {
  const code = run.http_status !== undefined ? 0 : run.exit_code;
  if (run.timed_out || run.failure !== undefined || code === null) return warning(run, handler);
  if (run.http_status !== undefined) {
    const failure = failedRun(run, handler);
    if (failure) return failure;
  }
  const fromStdout = run.stdout.trim() !== '';
  const said = fromStdout ? run.stdout.trim() : run.stderr.trim();
  const extras = raw(fromStdout ? run.stdout : run.stderr);
  const answer = run.truncated && fromStdout ? undefined : answerJson(said);
  if (!answer) {
    if (code === 0) return { outcome: 'allow', blocks: false, reason: null, ...extras };
    if (code === 1 || (said === '' && code !== 2)) return warning(run, handler);
    return {
      outcome: 'deny',
      blocks: true,
      reason: said || `${DEFAULT_DENY_REASON} (exit 2)`,
      ...extras,
    };
  }
  const decided = readAnswer(answer, handler);
  if (code === 2 && !decided.blocks)
    return {
      outcome: 'deny',
      blocks: true,
      reason: decided.reason ?? `${DEFAULT_DENY_REASON} (exit 2)`,
      ...extras,
    };
  // On another failing exit code a JSON deny or ask still counts; an allow is a warning.
  if (code === 0 || decided.outcome !== 'allow') return { ...decided, ...extras };
  return { ...warning(run, handler), ...extras };
}

/** A failed run: Gemini CLI logs it as a warning and goes on (docs/contract.md §6 reads it). */
function warning(run: HandlerRun, handler: HandlerTerms): PreDecision {
  return (
    failedRun(run, handler) ?? undecided(`exited with code ${run.exit_code}`, handler, 'error')
  );
}

/** A JSON answer: `continue: false`, then `decision` (docs/agent-dialects.md, "Gemini CLI"). */
function readAnswer(answer: Json, handler: HandlerTerms): PreDecision {
  const reason = text(answer.reason) ?? null;
  if (answer.continue === false)
    return {
      outcome: 'deny',
      blocks: true,
      reason:
        text(answer.stopReason) ??
        reason ??
        'a BeforeTool hook stopped the agent (continue: false)',
    };
  const decision = answer.decision;
  if (decision === 'deny' || decision === 'block')
    return { outcome: 'deny', blocks: true, reason: reason ?? DEFAULT_DENY_REASON };
  const rewrite = object(object(answer.hookSpecificOutput)?.tool_input);
  const withRewrite = rewrite ? { updatedInput: rewrite } : {};
  if (decision === 'ask') return { outcome: 'ask', blocks: false, reason, ...withRewrite };
  if (decision === undefined || decision === 'allow' || decision === 'approve')
    return { outcome: 'allow', blocks: false, reason, ...withRewrite };
  return undecided(
    `decision ${JSON.stringify(decision)} is not allow, deny, block or ask`,
    handler,
  );
}

/**
 * AfterTool, read as BeforeTool is (stdout, else stderr, whatever the exit code). Gemini CLI hides
 * the result from the model on `decision: "deny"` or its alias `"block"`, on `continue: false` and
 * on a blocking exit code, and sends the reason instead; `hookSpecificOutput.additionalContext` is
 * appended. A post hook cannot undo or hide a call that ran (docs/contract.md §6): hookbox adds
 * the reason, and the context, after the result (docs/agent-dialects.md, "Gemini CLI").
 */
function decidePost(run: HandlerRun, handler: HandlerTerms): PostDecision {
  const code = run.http_status !== undefined ? 0 : run.exit_code;
  const failure =
    run.timed_out || run.failure !== undefined || run.http_status !== undefined || code === null
      ? failureOf(run, handler.timeoutSeconds)
      : undefined;
  if (failure) return { ...failure, ...raw(run.stderr || run.stdout) };
  const fromStdout = run.stdout.trim() !== '';
  const said = fromStdout ? run.stdout.trim() : run.stderr.trim();
  const extras = raw(fromStdout ? run.stdout : run.stderr);
  const answer = run.truncated && fromStdout ? undefined : answerJson(said);
  const warning = { outcome: 'error' as const, reason: `exited with code ${code}`, ...extras };
  if (!answer) {
    if (code === 0) return { outcome: 'ok', reason: null, ...extras };
    if (code === 1 || (said === '' && code !== 2)) return warning;
    return blockedResult(said || `${DEFAULT_HIDE_REASON} (exit ${code})`, undefined, extras);
  }
  const context = text(object(answer.hookSpecificOutput)?.additionalContext);
  const blocked =
    answer.continue === false
      ? (text(answer.stopReason) ?? text(answer.reason) ?? 'an AfterTool hook stopped the agent')
      : answer.decision === 'deny' || answer.decision === 'block'
        ? (text(answer.reason) ?? DEFAULT_HIDE_REASON)
        : code === 2
          ? `${DEFAULT_HIDE_REASON} (exit 2)`
          : undefined;
  if (blocked !== undefined) return blockedResult(blocked, context, extras);
  if (code !== 0) return warning;
  return {
    outcome: 'ok',
    reason: null,
    ...(context ? { additionalContext: context } : {}),
    ...extras,
  };
}

const DEFAULT_HIDE_REASON = 'An AfterTool hook withheld the result.';

function blockedResult(
  reason: string,
  context: string | undefined,
  extras: { rawAnswer?: string },
): PostDecision {
  const parts = [`Tool result blocked: ${reason}`, ...(context ? [context] : [])];
  return { outcome: 'ok', reason, additionalContext: parts.join('\n'), ...extras };
}

export const geminiCliDialect: Dialect = {
  id: 'gemini-cli',
  toolName: (call) => geminiCliTools.show(call).name,
  prePayload: (context) => base(context, 'BeforeTool'),
  postPayload: (context, outcome) => ({
    ...base(context, 'AfterTool'),
    tool_response: {
      llmContent: resultText(context.call, outcome.result),
      returnDisplay: resultText(context.call, outcome.result),
      ...(outcome.error !== undefined
        ? { error: outcome.error }
        : failed(outcome.result)
          ? { error: resultText(context.call, outcome.result) }
          : {}),
    },
  }),
  env: () => ({ GEMINI_PROJECT_DIR: '/workspace', CLAUDE_PROJECT_DIR: '/workspace' }),
  decidePre,
  decidePost,
  mapBack: geminiCliTools.back,
};
