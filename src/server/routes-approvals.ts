import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { UserError } from '../errors/index.js';
import type { InteractionService } from '../interactions/service.js';
import type { WaitingApprovals } from '../mcp/waiting-approvals.js';

/** The answer to a waiting call. */
export const approvalAnswerSchema = z.strictObject({
  approve: z.boolean({ error: 'must be true (the call runs) or false (it is blocked)' }),
  reason: z.string({ error: 'must be a string' }).max(2000).optional(),
});

function answerOf(request: FastifyRequest): z.infer<typeof approvalAnswerSchema> {
  const parsed = approvalAnswerSchema.safeParse(request.body ?? {});
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  if (issue.code === 'unrecognized_keys')
    throw new UserError(
      'invalid_argument',
      `body: unknown field ${issue.keys.map((key) => JSON.stringify(key)).join(', ')} (known: approve, reason)`,
      { details: { field: 'body' } },
    );
  const field = issue.path.length > 0 ? String(issue.path[0]) : 'body';
  throw new UserError('invalid_argument', `${field}: ${issue.message}`, { details: { field } });
}

type ApprovalRequest = FastifyRequest<{ Params: { id: string; call_id?: string } }>;

/**
 * Approvals of MCP calls (docs/mcp.md, "ask"): a call over MCP from a client without elicitation
 * waits, its request held open, until `POST /v1beta/environments/{id}/approvals/{call_id}` answers
 * it. Only the environment's tenant and an admin see and answer its approvals, as for every route
 * of an environment (docs/tenants.md, "Ownership").
 */
export function registerApprovalRoutes(
  app: FastifyInstance,
  service: InteractionService,
  waiting: WaitingApprovals,
): void {
  app.get('/v1beta/environments/:id/approvals', async (request: ApprovalRequest) => {
    const environment = service.environmentInUse(request.params.id, request.caller);
    return { approvals: waiting.list(environment.id) };
  });

  app.post('/v1beta/environments/:id/approvals/:call_id', async (request: ApprovalRequest) => {
    const environment = service.environmentInUse(request.params.id, request.caller);
    const answer = answerOf(request);
    const caller = request.caller;
    const decidedBy = caller
      ? `${caller.role === 'admin' && caller.tenant !== environment.tenant ? 'admin ' : ''}tenant ${caller.tenant} via the approvals API`
      : 'the local user via the approvals API';
    const approval = waiting.decide(environment.id, request.params.call_id!, {
      approve: answer.approve,
      reason: answer.reason ?? null,
      decidedBy,
    });
    return {
      ...approval,
      status: answer.approve ? 'approved' : 'denied',
      decision_reason: answer.reason ?? null,
      decided_by: decidedBy,
    };
  });
}
