import { decidePost, undecided, type HandlerRun, type PreDecision } from '../decision.js';
import type { ToolCall } from '../../tools/types.js';
import { jsonObject, object, raw, text } from './answer-json.js';
import { sessionIdOf } from './claude-code.js';
import { absolute } from './foreign-tools.js';
import { failedRun, resultText } from './payload-parts.js';
import { renamedVocabulary } from './renamed-tools.js';
import type { Dialect, DialectCallContext, ForeignCall, HandlerTerms } from './types.js';

/**
 * Cursor hooks (docs/dialects.md, "Cursor"): `.cursor/hooks.json`. `preToolUse` / `postToolUse`
 * fire for every tool, `beforeShellExecution` / `afterShellExecution` for the shell,
 * `beforeReadFile` for reads, `afterFileEdit` for writes and edits, each with its own stdin. The
 * answer: exit 2 blocks; on exit 0 JSON `permission` (`allow`, `deny`, `ask`) with
 * `user_message` / `agent_message`, and on `preToolUse` `updated_input`. Any other failure lets
 * the call through unless the hook has `failClosed: true` (hookbox's `on_error: "deny"`).
 */

const renamed = renamedVocabulary({
  tools: {
    Bash: 'Shell',
    Read: 'Read',
    Write: 'Write',
    Edit: 'Edit',
    LS: 'LS',
    Glob: 'Glob',
    Grep: 'Grep',
  },
  fields: {
    Bash: { command: 'command' },
    Read: { file_path: 'file_path' },
    Write: { file_path: 'file_path', content: 'content' },
    Edit: { file_path: 'file_path', old_string: 'old_string', new_string: 'new_string' },
    LS: { path: 'path' },
    Glob: { pattern: 'glob_pattern', path: 'target_directory' },
    Grep: { pattern: 'pattern', path: 'path' },
  },
  fixed: { Bash: { cwd: '/workspace' } },
});

/** hookbox tool → Cursor tool; Cursor deletes files with its own `Delete` tool. */
export function toCursor(call: ToolCall): ForeignCall {
  if (call.name !== 'delete_file') return renamed.show(call);
  const a = call.args;
  return {
    name: 'Delete',
    input: { file_path: absolute(a.TargetFile ?? a.AbsolutePath ?? a.path) },
  };
}

/** Published Cursor hooks match edits as `StrReplace` as well as `Edit`: both select the call. */
export const CURSOR_TOOL_NAMES = [...renamed.names, 'Delete', 'StrReplace'];

function mapBack(updated: Record<string, unknown>, call: ToolCall) {
  if (call.name === 'delete_file') {
    const shown = toCursor(call).input.file_path;
    if (updated.file_path !== undefined && updated.file_path !== shown)
      return { error: 'a Delete call cannot be pointed at another file by updated_input' };
    return call;
  }
  return renamed.back(updated, call);
}

type Event = string;

function common(context: DialectCallContext, event: Event) {
  return {
    conversation_id: sessionIdOf(context.environmentId),
    generation_id: context.callId,
    hook_event_name: event,
    workspace_roots: ['/workspace'],
  };
}

function prePayload(event: Event) {
  return (context: DialectCallContext) => {
    const shown = toCursor(context.call);
    if (event === 'beforeShellExecution')
      return { ...common(context, event), command: shown.input.command, cwd: '/workspace' };
    if (event === 'beforeReadFile')
      return { ...common(context, event), file_path: shown.input.file_path };
    return {
      ...common(context, event),
      tool_name: shown.name,
      tool_input: shown.input,
      tool_use_id: context.callId,
      cwd: '/workspace',
    };
  };
}

function postPayload(event: Event): Dialect['postPayload'] {
  return (context, outcome) => {
    const shown = toCursor(context.call);
    const output = outcome.error ?? resultText(context.call, outcome.result);
    if (event === 'afterShellExecution')
      return { ...common(context, event), command: shown.input.command, output, duration: 0 };
    if (event === 'afterFileEdit')
      return {
        ...common(context, event),
        file_path: shown.input.file_path,
        edits: [
          {
            old_string: shown.name === 'Edit' ? shown.input.old_string : '',
            new_string: shown.name === 'Edit' ? shown.input.new_string : shown.input.content,
          },
        ],
      };
    return {
      ...common(context, event),
      tool_name: shown.name,
      tool_input: shown.input,
      tool_output: JSON.stringify(outcome.result),
      tool_use_id: context.callId,
      cwd: '/workspace',
      duration: 0,
    };
  };
}

function decidePre(run: HandlerRun, handler: HandlerTerms): PreDecision {
  const answer = run.truncated ? undefined : jsonObject(run.stdout);
  // Cursor's documented spelling is snake_case; published hooks also answer in camelCase.
  const said =
    text(answer?.agent_message) ??
    text(answer?.agentMessage) ??
    text(answer?.user_message) ??
    text(answer?.userMessage) ??
    text(answer?.reason);
  if (run.exit_code === 2 && !run.timed_out && run.failure === undefined)
    return {
      outcome: 'deny',
      blocks: true,
      reason: said ?? text(run.stderr.trim())?.trim() ?? 'Blocked by a Cursor hook. (exit 2)',
      ...raw(run.stdout || run.stderr),
    };
  const failure = failedRun(run, handler);
  if (failure) return failure;
  const extras = raw(run.stdout);
  if (!answer) return { outcome: 'allow', blocks: false, reason: null, ...extras };
  const context = text(answer.additional_context);
  const more = { ...extras, ...(context ? { additionalContext: context } : {}) };
  const rewrite = object(answer.updated_input);
  const withRewrite = rewrite ? { updatedInput: rewrite } : {};
  // `permission` is the documented field; some preToolUse hooks answer `decision`.
  const permission = answer.permission ?? answer.decision;
  switch (permission) {
    case 'deny':
      return {
        outcome: 'deny',
        blocks: true,
        reason: said ?? 'Blocked by a Cursor hook.',
        ...more,
      };
    case 'ask':
      return { outcome: 'ask', blocks: false, reason: said ?? null, ...withRewrite, ...more };
    case 'allow':
    case undefined:
      return { outcome: 'allow', blocks: false, reason: said ?? null, ...withRewrite, ...more };
    default:
      return {
        ...undecided(`permission ${JSON.stringify(permission)} is not allow, deny or ask`, handler),
        ...more,
      };
  }
}

const FIRES: Record<Event, (call: ToolCall) => boolean> = {
  beforeShellExecution: (call) => toCursor(call).name === 'Shell',
  afterShellExecution: (call) => toCursor(call).name === 'Shell',
  beforeReadFile: (call) => toCursor(call).name === 'Read',
  afterFileEdit: (call) => ['Write', 'Edit'].includes(toCursor(call).name),
  // hookbox offers no MCP tools, so these never fire.
  beforeMCPExecution: () => false,
  afterMCPExecution: () => false,
};

const cache = new Map<Event, Dialect>();

/** The Cursor dialect for one of its events (each has its own stdin and calls it fires for). */
export function cursorDialect(event: Event): Dialect {
  let dialect = cache.get(event);
  if (!dialect) {
    dialect = {
      id: 'cursor',
      toolName: (call) => toCursor(call).name,
      aliases: (call) => (toCursor(call).name === 'Edit' ? ['StrReplace'] : []),
      ...(FIRES[event] ? { fires: FIRES[event] } : {}),
      prePayload: prePayload(event),
      postPayload: postPayload(event),
      env: () => ({ CURSOR_PROJECT_DIR: '/workspace' }),
      decidePre,
      decidePost,
      // updated_input is read on preToolUse only.
      ...(event === 'preToolUse' ? { mapBack } : {}),
    };
    cache.set(event, dialect);
  }
  return dialect;
}
