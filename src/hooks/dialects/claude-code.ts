import { createHash } from 'node:crypto';
import {
  failedPre,
  failureOf,
  rawAnswerOf,
  undecided,
  type HandlerRun,
  type PostDecision,
  type PreDecision,
} from '../decision.js';
import type { ToolCall, JsonObject } from '../../tools/types.js';
import { absolute, fromClaudeCode, toClaudeCode } from './foreign-tools.js';
import type { Dialect, DialectCallContext, HandlerTerms } from './types.js';

/**
 * Claude Code hooks (docs/dialects.md, "Claude Code"): the stdin of Anthropic's hooks reference, and
 * its answers — exit code 2 blocks with stderr as the reason; on exit 0, JSON
 * `hookSpecificOutput.permissionDecision` (`allow`, `deny`, `ask`), the older top-level
 * `decision: "block"`, `updatedInput` and `additionalContext`. Codex CLI hooks use the same shape.
 */

const DEFAULT_DENY_REASON = 'Blocked by a PreToolUse hook.';

/** A stable UUID per environment: Claude Code's session_id is one per session. */
export function sessionIdOf(environmentId: string): string {
  const hex = createHash('sha256').update(`hookbox-session:${environmentId}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

function base(context: DialectCallContext, event: 'PreToolUse' | 'PostToolUse') {
  const shown = toClaudeCode(context.call);
  return {
    session_id: sessionIdOf(context.environmentId),
    cwd: '/workspace',
    hook_event_name: event,
    tool_name: shown.name,
    tool_input: shown.input,
    tool_use_id: context.callId,
  };
}

/** The tool's result in the shape of Claude Code's `tool_response` for that tool. */
function toolResponseOf(call: ToolCall, result: JsonObject): Record<string, unknown> {
  const shown = toClaudeCode(call);
  if (call.name === 'code_execution') {
    return {
      stdout: result.stdout ?? '',
      stderr: result.stderr ?? '',
      interrupted: result.timed_out === true,
      isImage: false,
      exit_code: result.exit_code,
    };
  }
  const filePath =
    typeof shown.input.file_path === 'string' ? shown.input.file_path : absolute(shown.input.path);
  const success = typeof result.error !== 'string';
  if (shown.name === 'Read')
    return { type: 'text', file: { filePath, content: result.content ?? '' }, success };
  return { filePath, success, ...result };
}

type Json = Record<string, unknown>;

function jsonObject(text: string): Json | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Json)
      : undefined;
  } catch {
    return undefined;
  }
}

const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);

function decidePre(run: HandlerRun, handler: HandlerTerms): PreDecision {
  if (run.exit_code === 2 && !run.timed_out && run.failure === undefined) {
    // Exit 2 blocks; stderr is the reason Claude is shown (stdout is not read).
    return {
      outcome: 'deny',
      blocks: true,
      reason: text(run.stderr.trim()) ?? `${DEFAULT_DENY_REASON} (exit 2)`,
      ...raw(run.stderr),
    };
  }
  const failed = failedPre(run, handler);
  if (failed) return { ...failed, ...raw(run.stderr || run.stdout) };
  const answer = run.truncated ? undefined : jsonObject(run.stdout);
  // Exit 0 without JSON is success: plain stdout only goes to Claude Code's transcript.
  if (!answer) return { outcome: 'allow', blocks: false, reason: null, ...raw(run.stdout) };
  const specific = (answer.hookSpecificOutput ?? {}) as Json;
  const context = text(specific.additionalContext);
  const extras = {
    ...raw(run.stdout),
    ...(context ? { additionalContext: context } : {}),
  };
  if (answer.continue === false) {
    const reason =
      text(answer.stopReason) ?? 'a PreToolUse hook stopped the agent (continue: false)';
    return { outcome: 'deny', blocks: true, reason, ...extras };
  }
  const decision = specific.permissionDecision;
  const reason = text(specific.permissionDecisionReason) ?? text(answer.reason) ?? null;
  const updated = specific.updatedInput;
  const rewrite =
    updated !== null && typeof updated === 'object' && !Array.isArray(updated)
      ? { updatedInput: updated as Json }
      : {};
  if (decision === 'deny' || (decision === undefined && answer.decision === 'block'))
    return { outcome: 'deny', blocks: true, reason: reason ?? DEFAULT_DENY_REASON, ...extras };
  if (decision === 'ask') return { outcome: 'ask', blocks: false, reason, ...rewrite, ...extras };
  if (decision === 'allow' || decision === 'defer' || decision === undefined) {
    // `defer` and no decision leave it to the normal flow, which in hookbox lets the call through.
    return { outcome: 'allow', blocks: false, reason, ...rewrite, ...extras };
  }
  return {
    ...undecided(
      `permissionDecision ${JSON.stringify(decision)} is not allow, deny or ask`,
      handler,
    ),
    ...extras,
  };
}

function raw(answer: string): { rawAnswer?: string } {
  const kept = rawAnswerOf(answer);
  return kept === undefined ? {} : { rawAnswer: kept };
}

/**
 * A PostToolUse hook cannot undo the call. What it says for Claude — stderr with exit 2, the reason
 * of `decision: "block"`, `additionalContext` — is added to what the model is shown.
 */
function decidePost(run: HandlerRun, handler: HandlerTerms): PostDecision {
  if (run.exit_code === 2 && !run.timed_out && run.failure === undefined) {
    const said = text(run.stderr.trim());
    return {
      outcome: 'ok',
      reason: said ?? null,
      ...(said ? { additionalContext: said } : {}),
      ...raw(run.stderr),
    };
  }
  const failure = failureOf(run, handler.timeoutSeconds);
  if (failure) return { ...failure, ...raw(run.stderr || run.stdout) };
  const answer = run.truncated ? undefined : jsonObject(run.stdout);
  if (!answer) return { outcome: 'ok', reason: null, ...raw(run.stdout) };
  const specific = (answer.hookSpecificOutput ?? {}) as Json;
  const parts = [
    answer.decision === 'block' ? text(answer.reason) : undefined,
    text(specific.additionalContext),
  ].filter((part): part is string => part !== undefined);
  return {
    outcome: 'ok',
    reason: answer.decision === 'block' ? (text(answer.reason) ?? null) : null,
    ...(parts.length > 0 ? { additionalContext: parts.join('\n') } : {}),
    ...raw(run.stdout),
  };
}

export const claudeCodeDialect: Dialect = {
  id: 'claude-code',
  toolName: (call) => toClaudeCode(call).name,
  prePayload: (context) => base(context, 'PreToolUse'),
  postPayload: (context, outcome) => ({
    ...base(context, 'PostToolUse'),
    tool_response: toolResponseOf(context.call, outcome.result),
    ...(outcome.error === undefined ? {} : { error: outcome.error }),
  }),
  env: () => ({ CLAUDE_PROJECT_DIR: '/workspace' }),
  decidePre,
  decidePost,
  mapBack: fromClaudeCode,
};
