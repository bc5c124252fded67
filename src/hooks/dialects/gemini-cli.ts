import { undecided, type HandlerRun, type PreDecision } from '../decision.js';
import { object, raw, text, type Json } from './answer-json.js';
import { claudeCodeDialect, sessionIdOf } from './claude-code.js';
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
  // AfterTool: exit 2 and `decision: "deny"` replace what the model is shown, and
  // `hookSpecificOutput.additionalContext` is appended — read as Claude Code's PostToolUse is.
  decidePost: claudeCodeDialect.decidePost,
  mapBack: geminiCliTools.back,
};
