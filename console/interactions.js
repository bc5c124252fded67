import { useState } from 'preact/hooks';
import { api, ApiError, useApi } from './api.js';
import { isWaiting } from './call-filters.js';
import { Badge, clock, html, ms, outputText } from './format.js';

/** Every hook run of a call: group, event, outcome, reason, duration. A deny is highlighted. */
export function HookRuns({ hooks }) {
  if (!hooks || hooks.length === 0) return html`<p class="muted small">No hook ran.</p>`;
  return html`<ul class="hooks">
    ${hooks.map(
      (hook, index) =>
        html`<li key=${index} class=${hook.outcome === 'deny' ? 'hook denied' : 'hook'}>
          <span class="hook-group">${hook.group}</span>
          <span class="muted small"
            >${`${hook.event === 'pre_tool_execution' ? 'pre' : 'post'} · ${hook.source} ${hook.type}`}</span
          >
          <${Badge} value=${hook.outcome} />
          <span class="muted small">${ms(hook.duration_ms)}</span>
          ${hook.reason !== null && hook.reason !== undefined && html`<p class="reason">${hook.reason}</p>`}
        </li>`,
    )}
  </ul>`;
}

/** One call on an environment's page. */
export function CallTimeline({ call }) {
  // A call a hook asked about is held for an approver, not denied (docs/dialects.md, "ask").
  const waiting = isWaiting(call);
  const denied = call.outcome === 'blocked' && !waiting;
  return html`<li
    class=${denied ? 'step denied' : waiting ? 'step waiting' : 'step'}
    data-call=${call.call_id}
  >
    <div class="step-head">
      <code>${call.tool}</code>
      <${Badge} value=${waiting ? 'waiting' : call.outcome} />
      <span class="muted small">${clock(call.at)}</span>
    </div>
    ${
      waiting &&
      html`<p class="reason"><strong>Held: </strong>${call.reason ?? 'waiting for approval'}</p>`
    }
    ${denied && html`<p class="reason"><strong>Denied: </strong>${call.reason ?? 'no reason given'}</p>`}
    <${HookRuns} hooks=${call.hooks} />
  </li>`;
}

/** Code is shown as code (`bash`, `python`), other arguments as JSON. */
function argumentsText(step) {
  const args = step.arguments ?? {};
  const code = args.code ?? args.command;
  if (step.type === 'code_execution_call' && typeof code === 'string')
    return `# ${args.language ?? 'bash'}\n${code}`;
  return JSON.stringify(args, null, 2);
}

const textOf = (content) => (content ?? []).map((part) => part.text ?? '').join('\n');

function Step({ step }) {
  switch (step.type) {
    case 'user_input':
      return html`<li class="step">
        <div class="step-head">User</div>
        <p class="text">${textOf(step.content)}</p>
      </li>`;
    case 'model_output':
      return html`<li class="step">
        <div class="step-head">Model</div>
        <p class="text">${textOf(step.content)}</p>
      </li>`;
    case 'code_execution_call':
    case 'function_call': {
      const denied = (step.hooks ?? []).some((hook) => hook.outcome === 'deny');
      return html`<li class=${denied ? 'step denied' : 'step'}>
        <div class="step-head">
          Call <code>${step.name ?? 'code_execution'}</code>
          ${denied && html`<${Badge} value="blocked" />`}
        </div>
        <pre class="args">${argumentsText(step)}</pre>
        <${HookRuns} hooks=${step.hooks} />
      </li>`;
    }
    case 'code_execution_result':
    case 'function_result': {
      // A code_execution_result's `result` is its text; the object (exit code and all) is beside it.
      const shown = step.structured_result ?? step.result;
      const result = outputText(shown);
      return html`<li class=${step.blocked ? 'step denied' : 'step'}>
        <div class="step-head">
          Result
          ${step.blocked ? html`<${Badge} value="blocked" />` : step.is_error ? html`<${Badge} value="error" />` : html`<${Badge} value="ok" />`}
        </div>
        ${
          step.blocked
            ? html`<p class="reason"><strong>Denied: </strong>${result}</p>`
            : html`<pre class="result">${result}</pre>`
        }
        <${HookRuns} hooks=${step.hooks} />
      </li>`;
    }
    default:
      return html`<li class="step"><div class="step-head">${step.type}</div></li>`;
  }
}

/**
 * Approve or deny one waiting call: the same continuation an API client sends
 * (`previous_interaction_id` and an `approval` item), so the same checks apply and the audit log
 * records the console's key as who answered (docs/console.md, "Acting").
 */
function ApprovalActions({ interaction, approval }) {
  const [state, setState] = useState({ busy: false, error: '', done: undefined });
  const answer = async (approve) => {
    setState({ busy: true, error: '', done: undefined });
    try {
      const continued = await api('/v1beta/interactions', {
        method: 'POST',
        body: {
          agent: interaction.agent,
          previous_interaction_id: interaction.id,
          input: [{ type: 'approval', call_id: approval.call_id, approve }],
        },
      });
      setState({ busy: false, error: '', done: { approve, id: continued.id } });
    } catch (failure) {
      setState({ busy: false, error: failure.message, done: undefined });
    }
  };
  if (state.done)
    return html`<p class="notice" role="status">
      ${state.done.approve ? 'Approved' : 'Denied'}; continued in
      <a href=${`#/interactions/${encodeURIComponent(state.done.id)}`}
        ><code>${state.done.id}</code></a
      >.
    </p>`;
  return html`<span class="actions">
    <button
      type="button"
      disabled=${state.busy}
      aria-label=${`Approve ${approval.call_id}`}
      onClick=${() => answer(true)}
    >
      Approve
    </button>
    <button
      type="button"
      class="danger"
      disabled=${state.busy}
      aria-label=${`Deny ${approval.call_id}`}
      onClick=${() => answer(false)}
    >
      Deny
    </button>
    ${state.error && html`<span class="error" role="alert">${state.error}</span>`}
  </span>`;
}

export function InteractionPage({ id, tick, onUnauthenticated }) {
  const { data, error } = useApi(
    `/v1beta/interactions/${encodeURIComponent(id)}`,
    [tick],
    onUnauthenticated,
  );
  return html`
    <p class="crumbs"><a href="#/interactions">Interactions</a> ›</p>
    <h1 tabindex="-1"><code>${id}</code></h1>
    ${error && html`<p class="error" role="alert">${error instanceof ApiError && error.status === 404 ? 'No such interaction (the server keeps a limited number).' : error.message}</p>`}
    ${
      data &&
      html`
        <dl class="facts">
          <div>
            <dt>Status</dt>
            <dd><${Badge} value=${data.status} /></dd>
          </div>
          <div>
            <dt>Agent</dt>
            <dd>${data.agent}</dd>
          </div>
          <div>
            <dt>Environment</dt>
            <dd>
              <a href=${`#/environments/${encodeURIComponent(data.environment_id)}`}
                ><code>${data.environment_id}</code></a
              >
            </dd>
          </div>
          <div>
            <dt>Started</dt>
            <dd>${clock(data.created)}</dd>
          </div>
          ${
            data.error &&
            html`<div>
              <dt>Error</dt>
              <dd class="error">${data.error.code}: ${data.error.message}</dd>
            </div>`
          }
        </dl>
        ${
          data.pending_approvals?.length > 0 &&
          html`<section aria-labelledby="approvals-title" class="approvals">
            <h2 id="approvals-title">Waiting for approval</h2>
            <p>
              A hook answered <code>ask</code>. Approve or deny here, or with a new interaction
              whose <code>previous_interaction_id</code> is this one and whose input holds
              <code>{"type": "approval", "call_id", "approve"}</code> (docs/dialects.md). The answer
              is recorded as yours.
            </p>
            <ul>
              ${data.pending_approvals.map(
                (approval) =>
                  html`<li key=${approval.call_id}>
                    <code>${approval.call_id}</code> ${approval.tool_call?.name}
                    <${Badge} value=${approval.status} /> ${approval.reason ?? ''}
                    ${approval.expires_at && html` (expires ${clock(approval.expires_at)})`}
                    ${
                      approval.status === 'pending' &&
                      html`<${ApprovalActions} interaction=${data} approval=${approval} />`
                    }
                  </li>`,
              )}
            </ul>
          </section>`
        }
        <h2>Steps</h2>
        <ol class="timeline" aria-label="Steps">
          ${data.steps.map((step, index) => html`<${Step} key=${index} step=${step} />`)}
        </ol>
      `
    }
  `;
}
