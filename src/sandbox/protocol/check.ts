import type { z } from 'zod';
import { formatPath } from '../../errors/zod-issues.js';
import { SystemError } from '../../errors/index.js';
import { OPERATIONS, PROTOCOL_VERSION, type AgentAnswerOf, type AgentOp } from './index.js';

/**
 * The issue to show for a value that failed a schema: for a union (an answer that may take several
 * shapes) the issue of the shape it came closest to, so the message names a field, not "invalid input".
 */
function firstIssue(issues: readonly z.core.$ZodIssue[]): { path: PropertyKey[]; message: string } {
  const issue = issues[0];
  if (!issue) return { path: [], message: 'does not match' };
  if (issue.code === 'invalid_union' && issue.errors.length > 0) {
    const closest = [...issue.errors].sort((a, b) => a.length - b.length)[0]!;
    const inner = firstIssue(closest);
    return { path: [...issue.path, ...inner.path], message: inner.message };
  }
  if (issue.code === 'unrecognized_keys')
    return {
      path: [...issue.path, issue.keys[0]!],
      message: `unknown key ${JSON.stringify(issue.keys[0])}`,
    };
  return { path: [...issue.path], message: issue.message };
}

/**
 * Checks the agent's answer to `op` against the protocol (docs/agent-protocol.md). A wrong shape is
 * `sandbox_protocol_violation`, naming the operation and the field: the agent in the image is not
 * the one this controller was built with, or has a bug. Not retryable: the same agent answers the
 * same way, and the request may have had its effect already.
 */
export function checkAnswer<Op extends AgentOp>(op: Op, answer: unknown): AgentAnswerOf<Op> {
  return checkAnswerShape(op, OPERATIONS[op].answer, answer) as AgentAnswerOf<Op>;
}

/** {@link checkAnswer} against one of the shapes an operation may answer with. */
export function checkAnswerShape<S extends z.ZodType>(
  op: string,
  schema: S,
  answer: unknown,
): z.output<S> {
  const parsed = schema.safeParse(answer);
  if (parsed.success) return parsed.data;
  const { path, message } = firstIssue(parsed.error.issues);
  const field = formatPath(path);
  throw new SystemError(
    'sandbox_protocol_violation',
    `sandbox agent: its answer to ${op} does not match protocol ${PROTOCOL_VERSION}: ${field}: ${message}`,
    { retryable: false, details: { operation: op, field } },
  );
}

/**
 * Checks a request before it is sent: a request the agent would misread is the controller's bug,
 * reported as such (`internal`) naming the operation and the field, and never sent.
 */
export function checkRequest(op: string, body: unknown): void {
  const definition = (OPERATIONS as Record<string, (typeof OPERATIONS)[AgentOp]>)[op];
  if (!definition)
    throw new SystemError('internal', `sandbox agent: no operation ${JSON.stringify(op)}`, {
      details: { operation: op, field: 'op' },
    });
  const parsed = definition.request.safeParse(body);
  if (parsed.success) return;
  const { path, message } = firstIssue(parsed.error.issues);
  const field = formatPath(path);
  throw new SystemError(
    'internal',
    `sandbox agent: the request for ${op} does not match protocol ${PROTOCOL_VERSION}: ${field}: ${message}`,
    { details: { operation: op, field } },
  );
}

/**
 * The version check on connect: the agent's `ping` answer must report this controller's protocol
 * version. Another version is `sandbox_agent_incompatible`, naming both: the image was built by
 * another hookbox (docs/agent-protocol.md, Versions).
 */
export function checkVersion(protocol: number, image?: string): void {
  if (protocol === PROTOCOL_VERSION) return;
  throw new SystemError(
    'sandbox_agent_incompatible',
    `the sandbox agent${image ? ` of image ${image}` : ''} speaks protocol ${protocol}, this hookbox ${PROTOCOL_VERSION}; use the image this hookbox builds (hookbox image build) or rebuild the template`,
    {
      retryable: false,
      details: { agent_protocol: protocol, controller_protocol: PROTOCOL_VERSION },
    },
  );
}
