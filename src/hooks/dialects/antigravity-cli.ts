import {
  decidePost,
  failedPre,
  rawAnswerOf,
  tail,
  undecided,
  type HandlerRun,
  type PreDecision,
} from '../decision.js';
import { toAntigravityCli } from './foreign-tools.js';
import type { Dialect, DialectCallContext, HandlerTerms } from './types.js';

/**
 * Antigravity CLI hooks (docs/dialects.md, "Antigravity CLI"): protojson stdin with a camelCase
 * `toolCall: {name, args}` and `workspacePaths`, and a top-level `decision` of `allow`, `deny`,
 * `ask` or `force_ask`. An object with no decision (`{}`) is refused, as the current CLI (agy 1.2.7)
 * refuses it: its PreToolUse contract has no "no opinion" answer (docs/dialects.md, "Antigravity CLI").
 */

function payload(context: DialectCallContext) {
  const shown = toAntigravityCli(context.call);
  return { toolCall: { name: shown.name, args: shown.input }, workspacePaths: ['/workspace'] };
}

function decidePre(run: HandlerRun, handler: HandlerTerms): PreDecision {
  const kept = rawAnswerOf(run.stdout || run.stderr);
  const raw = kept === undefined ? {} : { rawAnswer: kept };
  const failed = failedPre(run, handler);
  if (failed) return { ...failed, ...raw };
  let answer: unknown;
  try {
    answer = run.truncated ? undefined : JSON.parse(run.stdout);
  } catch {
    answer = undefined;
  }
  if (answer === null || typeof answer !== 'object' || Array.isArray(answer)) {
    const shown = tail(run.stdout, 120);
    const what =
      shown === '' ? 'empty output' : `output is not a decision: ${JSON.stringify(shown)}`;
    return { ...undecided(what, handler), ...raw };
  }
  const { decision, reason } = answer as { decision?: unknown; reason?: unknown };
  const said = typeof reason === 'string' && reason !== '' ? reason : null;
  switch (decision) {
    case 'deny':
      return {
        outcome: 'deny',
        blocks: true,
        reason: said ?? 'Blocked by a PreToolUse hook.',
        ...raw,
      };
    case 'allow':
      return { outcome: 'allow', blocks: false, reason: said, ...raw };
    case 'ask':
      return { outcome: 'ask', blocks: false, reason: said, force: false, ...raw };
    case 'force_ask':
      return { outcome: 'ask', blocks: false, reason: said, force: true, ...raw };
    case undefined:
    case '':
      return {
        outcome: 'deny',
        blocks: true,
        reason:
          said ??
          'the hook answered with no decision ({}); Antigravity CLI refuses a tool call whose PreToolUse hook does (answer {"decision": "allow"} to let it through)',
        ...raw,
      };
    default:
      return {
        ...undecided(
          `decision ${JSON.stringify(decision)} is not allow, deny, ask or force_ask`,
          handler,
        ),
        ...raw,
      };
  }
}

export const antigravityCliDialect: Dialect = {
  id: 'antigravity-cli',
  toolName: (call) => toAntigravityCli(call).name,
  prePayload: payload,
  postPayload: (context, outcome) => ({
    ...payload(context),
    toolResult: outcome.result,
    ...(outcome.error === undefined ? {} : { error: outcome.error }),
  }),
  env: () => ({}),
  decidePre,
  decidePost,
};
