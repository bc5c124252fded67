import { decidePost, undecided, type HandlerRun, type PreDecision } from '../decision.js';
import { jsonObject, raw, text } from './answer-json.js';
import { sessionIdOf } from './claude-code.js';
import { failedRun, resultText } from './payload-parts.js';
import { EDITOR_FIELDS, renamedVocabulary } from './renamed-tools.js';
import type { Dialect, DialectCallContext, HandlerTerms } from './types.js';

/**
 * OpenHands hooks (docs/dialects.md, "OpenHands"): `.openhands/hooks.json` in Claude Code's shape,
 * the stdin of the OpenHands SDK's `HookEvent` (`event_type`, `tool_name`, `tool_input`,
 * `tool_output`, `session_id`, `working_dir`, `metadata`), and its executor's reading — exit 2
 * blocks, `decision` `deny`/`block` blocks, `continue: false` blocks; every other exit code, a
 * timeout or a crash lets the call through. OpenHands has no `ask` and no input rewrite.
 */

export const openHandsTools = renamedVocabulary({
  tools: {
    Bash: 'terminal',
    Read: 'file_editor',
    Write: 'file_editor',
    Edit: 'file_editor',
    LS: 'file_editor',
    Glob: 'glob',
    Grep: 'grep',
  },
  fields: EDITOR_FIELDS,
  fixed: {
    Read: { command: 'view' },
    Write: { command: 'create' },
    Edit: { command: 'str_replace' },
    LS: { command: 'view' },
  },
});

function event(context: DialectCallContext, type: 'PreToolUse' | 'PostToolUse') {
  const shown = openHandsTools.show(context.call);
  return {
    event_type: type,
    tool_name: shown.name,
    tool_input: shown.input,
    tool_output: null as string | null,
    message: null,
    session_id: sessionIdOf(context.environmentId),
    working_dir: '/workspace',
    metadata: {},
  };
}

function decidePre(run: HandlerRun, handler: HandlerTerms): PreDecision {
  const answer = run.truncated ? undefined : jsonObject(run.stdout);
  const said = text(answer?.reason);
  const extras = raw(run.stdout || run.stderr);
  // The executor reads stdout's JSON whatever the exit code; exit 2 blocks.
  if (run.exit_code === 2 && !run.timed_out && run.failure === undefined)
    return {
      outcome: 'deny',
      blocks: true,
      reason: said ?? text(run.stderr.trim())?.trim() ?? 'Blocked by a PreToolUse hook. (exit 2)',
      ...extras,
    };
  const failure = failedRun(run, handler);
  if (failure) return failure;
  if (!answer) return { outcome: 'allow', blocks: false, reason: null, ...extras };
  const decision = typeof answer.decision === 'string' ? answer.decision.toLowerCase() : undefined;
  const context = text(answer.additionalContext);
  const more = { ...extras, ...(context ? { additionalContext: context } : {}) };
  if (decision === 'deny' || decision === 'block' || answer.continue === false)
    return {
      outcome: 'deny',
      blocks: true,
      reason: said ?? 'Blocked by a PreToolUse hook.',
      ...more,
    };
  if (decision === undefined || decision === 'allow' || decision === 'approve')
    return { outcome: 'allow', blocks: false, reason: said ?? null, ...more };
  return {
    ...undecided(
      `decision ${JSON.stringify(answer.decision)} is not allow, approve, deny or block`,
      handler,
    ),
    ...more,
  };
}

export const openHandsDialect: Dialect = {
  id: 'openhands',
  toolName: (call) => openHandsTools.show(call).name,
  prePayload: (context) => event(context, 'PreToolUse'),
  postPayload: (context, outcome) => ({
    ...event(context, 'PostToolUse'),
    tool_output: outcome.error ?? resultText(context.call, outcome.result),
  }),
  env: () => ({ OPENHANDS_PROJECT_DIR: '/workspace' }),
  decidePre,
  decidePost,
};
