import { decidePost, undecided, type HandlerRun, type PreDecision } from '../decision.js';
import { jsonObject, object, raw, text } from './answer-json.js';
import { sessionIdOf } from './claude-code.js';
import { failed, failedRun, resultText } from './payload-parts.js';
import { EDITOR_FIELDS, renamedVocabulary } from './renamed-tools.js';
import type { Dialect, DialectCallContext, HandlerTerms } from './types.js';

/**
 * GitHub Copilot CLI hooks (docs/dialects.md, "GitHub Copilot"): `.github/hooks/*.json`. A
 * camelCase event (`preToolUse`) gets the camelCase stdin (`toolName`, `toolArgs` as a JSON
 * string); a PascalCase one (`PreToolUse`) the VS Code-compatible snake_case stdin (`tool_name`,
 * `tool_input`). The answer is JSON on stdout: `permissionDecision` (`allow`, `deny`, `ask`),
 * `permissionDecisionReason`, `modifiedArgs`. Copilot CLI never lets a failed hook block: a
 * non-zero exit (2 included) or a timeout is logged and skipped.
 */

export const copilotTools = renamedVocabulary({
  tools: {
    Bash: 'bash',
    Read: 'view',
    Write: 'create',
    Edit: 'edit',
    LS: 'view',
    Glob: 'glob',
    Grep: 'grep',
  },
  fields: EDITOR_FIELDS,
});

const DEFAULT_DENY_REASON = 'Denied by a preToolUse hook.';

function camelCase(context: DialectCallContext) {
  const shown = copilotTools.show(context.call);
  return {
    sessionId: sessionIdOf(context.environmentId),
    timestamp: Date.now(),
    cwd: '/workspace',
    toolName: shown.name,
    toolArgs: JSON.stringify(shown.input),
  };
}

function vsCode(context: DialectCallContext, event: 'PreToolUse' | 'PostToolUse') {
  const shown = copilotTools.show(context.call);
  return {
    hook_event_name: event,
    session_id: sessionIdOf(context.environmentId),
    timestamp: new Date().toISOString(),
    cwd: '/workspace',
    tool_name: shown.name,
    tool_input: shown.input,
  };
}

function decidePre(run: HandlerRun, handler: HandlerTerms): PreDecision {
  const failure = failedRun(run, handler);
  if (failure) return failure;
  const answer = run.truncated ? undefined : jsonObject(run.stdout);
  // Empty output (or anything that is not a decision) uses the default behaviour: the call goes on.
  if (!answer) return { outcome: 'allow', blocks: false, reason: null, ...raw(run.stdout) };
  // The VS Code-compatible form nests the decision under hookSpecificOutput.
  const said = { ...answer, ...object(answer.hookSpecificOutput) };
  const extras = raw(run.stdout);
  const reason = text(said.permissionDecisionReason) ?? null;
  const rewrite = object(said.modifiedArgs) ?? object(said.updatedInput);
  const withRewrite = rewrite ? { updatedInput: rewrite } : {};
  switch (said.permissionDecision) {
    case 'deny':
      return { outcome: 'deny', blocks: true, reason: reason ?? DEFAULT_DENY_REASON, ...extras };
    case 'ask':
      return { outcome: 'ask', blocks: false, reason, ...withRewrite, ...extras };
    case 'allow':
    case undefined:
      return { outcome: 'allow', blocks: false, reason, ...withRewrite, ...extras };
    default:
      return {
        ...undecided(
          `permissionDecision ${JSON.stringify(said.permissionDecision)} is not allow, deny or ask`,
          handler,
        ),
        ...extras,
      };
  }
}

const common = {
  id: 'copilot' as const,
  toolName: (call: DialectCallContext['call']) => copilotTools.show(call).name,
  env: () => ({}),
  decidePre,
  decidePost,
  mapBack: copilotTools.back,
};

/** Events written in camelCase: Copilot CLI's own payload. */
export const copilotDialect: Dialect = {
  ...common,
  prePayload: camelCase,
  postPayload: (context, outcome) => ({
    ...camelCase(context),
    toolResult: {
      resultType: outcome.error !== undefined || failed(outcome.result) ? 'failure' : 'success',
      textResultForLlm: outcome.error ?? resultText(context.call, outcome.result),
    },
  }),
};

/** Events written in PascalCase: the VS Code-compatible payload. */
export const copilotVsCodeDialect: Dialect = {
  ...common,
  prePayload: (context) => vsCode(context, 'PreToolUse'),
  postPayload: (context, outcome) => ({
    ...vsCode(context, 'PostToolUse'),
    tool_result: {
      result_type: outcome.error !== undefined || failed(outcome.result) ? 'failure' : 'success',
      text_result_for_llm: outcome.error ?? resultText(context.call, outcome.result),
    },
  }),
};
