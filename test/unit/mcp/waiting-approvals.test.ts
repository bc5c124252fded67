// MCP calls waiting for the approvals API (docs/mcp.md, "ask"): each ends once — answered, expired
// or withdrawn — and only the environment that holds it may answer it.
import { describe, expect, it } from 'vitest';
import type { ApprovalRequest } from '../../../src/hooks/approvals.js';
import { UserError } from '../../../src/errors/index.js';
import { WaitingApprovals } from '../../../src/mcp/waiting-approvals.js';

const request = (callId: string): ApprovalRequest => ({
  environmentId: 'env-1',
  callId,
  interactionId: null,
  call: { name: 'code_execution', args: { code: 'echo hi' } },
  asks: [{ group: 'g', handler: 'h', reason: 'look first', force: false }],
});
const options = { ttlMs: 60_000, mcpClient: 'unit-client' };
const answer = { approve: true, reason: null, decidedBy: 'tenant t via the approvals API' };

function refusal(action: () => unknown): UserError {
  try {
    action();
  } catch (error) {
    if (error instanceof UserError) return error;
  }
  throw new Error('not refused');
}

describe('waiting approvals', () => {
  it('lists a waiting call per environment and ends it with the answer, once', async () => {
    const waiting = new WaitingApprovals();
    let shown = 0;
    const end = waiting.wait(request('call-1'), options, () => shown++);
    expect(shown).toBe(1);
    expect(waiting.list('env-2')).toEqual([]);
    expect(waiting.list('env-1')).toMatchObject([
      { call_id: 'call-1', via: 'mcp', mcp_client: 'unit-client', reason: 'look first' },
    ]);
    expect(refusal(() => waiting.decide('env-2', 'call-1', answer)).code).toBe('not_found');
    waiting.decide('env-1', 'call-1', { ...answer, approve: false, reason: 'no' });
    await expect(end).resolves.toEqual({
      status: 'denied',
      reason: 'no',
      decided_by: 'tenant t via the approvals API',
    });
    expect(waiting.list('env-1')).toEqual([]);
    expect(refusal(() => waiting.decide('env-1', 'call-1', answer)).details.field).toBe('call_id');
  });

  it('expires unanswered, and refuses an answer past the expiry', async () => {
    const waiting = new WaitingApprovals();
    const timed = waiting.wait(request('call-2'), { ...options, ttlMs: 20 }, () => {});
    await expect(timed).resolves.toMatchObject({ status: 'expired' });
    // An answer that arrives after the time, before its timer fired, is refused as expired.
    const late = waiting.wait(request('call-3'), { ...options, ttlMs: 0 }, () => {});
    const refused = refusal(() => waiting.decide('env-1', 'call-3', answer));
    expect(refused.code).toBe('conflict');
    expect(refused.message).toContain('expired');
    await expect(late).resolves.toMatchObject({ status: 'expired' });
  });

  it('withdraws when the request is cancelled, before or while it waits', async () => {
    const waiting = new WaitingApprovals();
    const abort = new AbortController();
    const end = waiting.wait(request('call-4'), { ...options, signal: abort.signal }, () => {});
    abort.abort();
    await expect(end).resolves.toMatchObject({ status: 'withdrawn' });
    expect(waiting.list('env-1')).toEqual([]);
    let shown = false;
    const already = waiting.wait(request('call-5'), { ...options, signal: abort.signal }, () => {
      shown = true;
    });
    await expect(already).resolves.toMatchObject({ status: 'withdrawn' });
    expect(shown).toBe(false);
  });
});
