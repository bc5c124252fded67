import { undecided, type HandlerRun, type PreDecision } from '../decision.js';
import { jsonObject, object, raw, text } from './answer-json.js';
import { claudeCodeDialect, sessionIdOf } from './claude-code.js';
import { exitTwo, failed, failedRun, resultText } from './payload-parts.js';
import { renamedVocabulary } from './renamed-tools.js';
import type { Dialect, DialectCallContext, HandlerTerms } from './types.js';

/**
 * Gemini CLI hooks (docs/dialects.md, "Gemini CLI"): `BeforeTool` / `AfterTool` in
 * `.gemini/settings.json`, the snake_case stdin of its hooks reference, and its answers — exit 2
 * blocks with stderr as the reason, other exit codes are warnings that let the call through; on
 * exit 0 a JSON `decision` (`allow`, `deny`, its alias `block`, `ask`), `continue: false`, and
 * `hookSpecificOutput.tool_input`, which is merged over the call's arguments.
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

function decidePre(run: HandlerRun, handler: HandlerTerms): PreDecision {
  const blocked = exitTwo(run, `${DEFAULT_DENY_REASON} (exit 2)`);
  if (blocked) {
    // Published Gemini CLI hooks that exit 2 often write {"decision":"deny","reason":…} as JSON, on
    // stderr or on stdout: the reason is that JSON's reason, else stderr's text.
    const said =
      text(jsonObject(run.stderr.trim())?.reason) ?? text(jsonObject(run.stdout.trim())?.reason);
    return said ? { ...blocked, reason: said } : blocked;
  }
  const failure = failedRun(run, handler);
  if (failure) return failure;
  const answer = run.truncated ? undefined : jsonObject(run.stdout);
  // Plain stdout on exit 0 is shown to the user as a message; the call goes on.
  if (!answer) return { outcome: 'allow', blocks: false, reason: null, ...raw(run.stdout) };
  const extras = raw(run.stdout);
  const reason = text(answer.reason) ?? null;
  if (answer.continue === false)
    return {
      outcome: 'deny',
      blocks: true,
      reason:
        text(answer.stopReason) ??
        reason ??
        'a BeforeTool hook stopped the agent (continue: false)',
      ...extras,
    };
  const decision = answer.decision;
  if (decision === 'deny' || decision === 'block')
    return { outcome: 'deny', blocks: true, reason: reason ?? DEFAULT_DENY_REASON, ...extras };
  const rewrite = object(object(answer.hookSpecificOutput)?.tool_input);
  const withRewrite = rewrite ? { updatedInput: rewrite } : {};
  if (decision === 'ask')
    return { outcome: 'ask', blocks: false, reason, ...withRewrite, ...extras };
  if (decision === undefined || decision === 'allow' || decision === 'approve')
    return { outcome: 'allow', blocks: false, reason, ...withRewrite, ...extras };
  return {
    ...undecided(`decision ${JSON.stringify(decision)} is not allow, deny, block or ask`, handler),
    ...extras,
  };
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
