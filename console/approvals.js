import { useState } from 'preact/hooks';
import { api, ApiError, useApi } from './api.js';
import { clock, html } from './format.js';

/** Approve or deny one waiting call (`POST /v1beta/environments/{id}/approvals/{call_id}`). */
function Answer({ approval, onAnswered }) {
  const [stage, setStage] = useState('idle');
  const [error, setError] = useState('');
  const answer = async (approve) => {
    setStage('sending');
    try {
      const path = `/v1beta/environments/${encodeURIComponent(approval.environment_id)}/approvals/${encodeURIComponent(approval.call_id)}`;
      await api(path, {
        method: 'POST',
        body: { approve, reason: `${approve ? 'approved' : 'denied'} in the console` },
      });
      setStage(approve ? 'approved' : 'denied');
      onAnswered?.();
    } catch (failure) {
      setError(failure instanceof ApiError ? failure.message : String(failure));
      setStage('idle');
    }
  };
  if (stage === 'approved' || stage === 'denied') return html`<span>${stage}</span>`;
  return html`<span role="group" aria-label=${`Answer call ${approval.call_id}`}>
    <button type="button" disabled=${stage !== 'idle'} onClick=${() => answer(true)}>
      Approve
    </button>
    <button
      type="button"
      class="danger-outline"
      disabled=${stage !== 'idle'}
      onClick=${() => answer(false)}
    >
      Deny
    </button>
    ${error && html`<span class="error" role="alert">${error}</span>`}
  </span>`;
}

/**
 * Calls over MCP waiting for an approval in this environment (docs/mcp.md, "ask"): the call, the
 * gates' reason (as text) and its expiry, with Approve and Deny. The MCP client holds its request
 * open until one is pressed (or the API answers).
 */
export function WaitingApprovals({ id, tick, onUnauthenticated }) {
  const [answered, setAnswered] = useState(0);
  const path = `/v1beta/environments/${encodeURIComponent(id)}/approvals`;
  const { data } = useApi(path, [tick, answered], onUnauthenticated);
  const approvals = data?.approvals ?? [];
  if (approvals.length === 0) return null;
  return html`<section aria-labelledby="mcp-approvals-title" class="approvals mcp-approvals">
    <h2 id="mcp-approvals-title">Waiting for approval (over MCP)</h2>
    <p>
      A gate answered <code>ask</code> on a call from an MCP client that cannot ask its user; the
      call waits until it is answered here or by the API.
    </p>
    <ul>
      ${approvals.map(
        (approval) =>
          html`<li key=${approval.call_id}>
            <code>${approval.call_id}</code> ${approval.tool_call?.name} from MCP client
            ${approval.mcp_client}: ${approval.reason}
            <pre>${JSON.stringify(approval.tool_call?.args ?? {}, null, 2)}</pre>
            denied unless answered by ${clock(approval.expires_at)}
            <${Answer} approval=${approval} onAnswered=${() => setAnswered((n) => n + 1)} />
          </li>`,
      )}
    </ul>
  </section>`;
}
