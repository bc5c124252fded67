import { undecided, type HandlerRun, type PreDecision } from '../decision.js';
import type { ToolCall } from '../../tools/types.js';
import { valueText } from '../../tools/value-text.js';
import { jsonObject, object, raw, text } from './answer-json.js';
import { claudeCodeDialect, sessionIdOf } from './claude-code.js';
import { absolute, commandOf, fromClaudeCode, shellQuote } from './foreign-tools.js';
import { exitTwo, failedRun, resultText } from './payload-parts.js';
import type { Dialect, DialectCallContext, ForeignCall, HandlerTerms } from './types.js';

/**
 * OpenAI Codex CLI hooks (docs/dialects.md, "Codex"): Claude Code's shape with Codex's tools —
 * `Bash` for every shell command (Codex reads, lists and searches files with its shell) and
 * `apply_patch` for file edits (its matchers also select it as `Write` or `Edit`) — and Codex's
 * stricter reading (codex-rs/hooks, events/pre_tool_use.rs and engine/output_parser.rs): only exit 2
 * with a reason on stderr, `permissionDecision: "deny"` with a reason, or `decision: "block"` with a
 * reason block; everything Codex does not support (`ask`, `allow` without `updatedInput`,
 * `continue: false`, a deny without a reason, output that looks like broken JSON) is a failed
 * hook, and a failed hook lets the call through.
 */

const DEFAULT_MODEL = 'hookbox';

function patchLines(prefix: string, text: unknown): string {
  return valueText(text ?? '')
    .split('\n')
    .map((line) => `${prefix}${line}`)
    .join('\n');
}

/** hookbox tool → Codex tool (Bash or apply_patch), as Codex would have called it. */
export function toCodex(call: ToolCall): ForeignCall {
  const a = call.args;
  const bash = (command: string): ForeignCall => ({ name: 'Bash', input: { command } });
  const patch = (body: string): ForeignCall => ({
    name: 'apply_patch',
    input: { command: `*** Begin Patch\n${body}\n*** End Patch\n` },
  });
  switch (call.name) {
    case 'code_execution':
      return bash(commandOf(a));
    case 'delete_file':
      return bash(`rm -- ${shellQuote(absolute(a.TargetFile ?? a.AbsolutePath ?? a.path))}`);
    case 'read_file':
      return bash(`cat -- ${shellQuote(absolute(a.path))}`);
    case 'view_file': {
      const file = shellQuote(absolute(a.AbsolutePath));
      if (a.StartLine === undefined && a.EndLine === undefined) return bash(`cat -- ${file}`);
      return bash(
        `sed -n '${Number(a.StartLine ?? 1)},${valueText(a.EndLine ?? '$')}p' -- ${file}`,
      );
    }
    case 'list_files':
    case 'list_dir':
      return bash(`ls -la -- ${shellQuote(absolute(a.path ?? a.DirectoryPath))}`);
    case 'find_by_name':
      return bash(
        `find ${shellQuote(absolute(a.SearchDirectory))} -name ${shellQuote(String(a.Pattern))}`,
      );
    case 'grep_search':
      return bash(
        `grep -rn ${a.IsRegex === true ? '-E' : '-F'} -e ${shellQuote(String(a.Query))} -- ${shellQuote(absolute(a.SearchPath))}`,
      );
    case 'write_file':
    case 'write_to_file':
      return patch(
        `*** Add File: ${absolute(a.path ?? a.TargetFile)}\n${patchLines('+', a.content ?? a.CodeContent)}`,
      );
    case 'replace_file_content':
      return patch(
        `*** Update File: ${absolute(a.TargetFile)}\n@@\n${patchLines('-', a.TargetContent)}\n${patchLines('+', a.ReplacementContent)}`,
      );
    default:
      return { name: call.name, input: a };
  }
}

export const CODEX_TOOL_NAMES = ['Bash', 'apply_patch', 'Write', 'Edit'];

/** A changed `command` of a shell call runs as bash code; other rewrites cannot be carried back. */
function mapBack(updated: Record<string, unknown>, call: ToolCall): ToolCall | { error: string } {
  const shown = toCodex(call);
  if (updated.command === undefined || updated.command === shown.input.command) return call;
  if (call.name === 'code_execution') return fromClaudeCode({ command: updated.command }, call);
  return {
    error: `${call.name} is shown to Codex hooks as ${shown.name}; a rewritten ${shown.name} command would be another call, so it cannot be carried back`,
  };
}

function base(context: DialectCallContext, event: 'PreToolUse' | 'PostToolUse') {
  const shown = toCodex(context.call);
  return {
    session_id: sessionIdOf(context.environmentId),
    turn_id: context.callId,
    transcript_path: null,
    cwd: '/workspace',
    hook_event_name: event,
    model: DEFAULT_MODEL,
    permission_mode: 'default',
    tool_name: shown.name,
    tool_input: shown.input,
    tool_use_id: context.callId,
  };
}

function unsupported(what: string, run: HandlerRun, handler: HandlerTerms): PreDecision {
  return { ...undecided(`Codex does not support ${what}`, handler), ...raw(run.stdout) };
}

function decidePre(run: HandlerRun, handler: HandlerTerms): PreDecision {
  const blocked = exitTwo(run, '', true);
  if (blocked) return blocked;
  if (run.exit_code === 2 && !run.timed_out && run.failure === undefined)
    return {
      ...undecided('exited with code 2 but wrote no blocking reason to stderr', handler, 'error'),
      ...raw(run.stdout),
    };
  const failure = failedRun(run, handler);
  if (failure) return failure;
  const trimmed = run.stdout.trim();
  const answer = run.truncated ? undefined : jsonObject(trimmed);
  if (!answer) {
    if (trimmed.startsWith('{') || trimmed.startsWith('['))
      return { ...undecided('invalid pre-tool-use JSON output', handler), ...raw(run.stdout) };
    // Plain text on stdout is ignored: the hook completed without objection.
    return { outcome: 'allow', blocks: false, reason: null, ...raw(run.stdout) };
  }
  if (answer.continue === false) return unsupported('continue:false', run, handler);
  if (answer.stopReason !== undefined) return unsupported('stopReason', run, handler);
  if (answer.suppressOutput === true) return unsupported('suppressOutput', run, handler);
  const specific = object(answer.hookSpecificOutput ?? answer.hook_specific_output);
  const context = text(specific?.additionalContext ?? specific?.additional_context);
  const extras = { ...raw(run.stdout), ...(context ? { additionalContext: context } : {}) };
  const decision = specific?.permissionDecision;
  const reason = text(specific?.permissionDecisionReason)?.trim();
  const updated = object(specific?.updatedInput);
  if (specific && (decision !== undefined || reason !== undefined || updated || context)) {
    if (decision === 'deny')
      return reason
        ? { outcome: 'deny', blocks: true, reason, ...extras }
        : unsupported('permissionDecision:deny without a permissionDecisionReason', run, handler);
    if (decision === 'allow' && updated)
      return { outcome: 'allow', blocks: false, reason: null, updatedInput: updated, ...extras };
    if (decision === undefined && !updated && reason === undefined)
      return { outcome: 'allow', blocks: false, reason: null, ...extras };
    return unsupported(
      decision === undefined
        ? 'updatedInput or permissionDecisionReason without permissionDecision'
        : `permissionDecision:${valueText(decision)}${decision === 'allow' ? ' without updatedInput' : ''}`,
      run,
      handler,
    );
  }
  const legacyReason = text(answer.reason)?.trim();
  if (answer.decision === 'block')
    return legacyReason
      ? { outcome: 'deny', blocks: true, reason: legacyReason, ...extras }
      : unsupported('decision:block without a reason', run, handler);
  if (answer.decision === 'approve') return unsupported('decision:approve', run, handler);
  if (answer.decision === undefined && legacyReason === undefined)
    return { outcome: 'allow', blocks: false, reason: null, ...extras };
  return unsupported(`decision ${JSON.stringify(answer.decision)}`, run, handler);
}

export const codexDialect: Dialect = {
  id: 'codex',
  toolName: (call) => toCodex(call).name,
  aliases: (call) => (toCodex(call).name === 'apply_patch' ? ['Write', 'Edit'] : []),
  prePayload: (context) => base(context, 'PreToolUse'),
  postPayload: (context, outcome) => ({
    ...base(context, 'PostToolUse'),
    tool_response: outcome.error ?? resultText(context.call, outcome.result),
  }),
  env: () => ({}),
  decidePre,
  // PostToolUse answers are Claude Code's: exit 2 stderr, decision:block's reason, additionalContext.
  decidePost: claudeCodeDialect.decidePost,
  mapBack,
};
