import { useState } from 'preact/hooks';
import { api, ApiError, useApi } from './api.js';
import { ago, Badge, Cell, clock, html, ms, shortId } from './format.js';
import { WaitingApprovals } from './approvals.js';
import { CallFilters, callMatches, NO_CALL_FILTERS, shownOutcome } from './call-filters.js';
import { CallTimeline } from './interactions.js';

/** Delete with a second, explicit confirmation (no browser dialog: it works with any input). */
function DeleteButton({ id, onDeleted }) {
  const [stage, setStage] = useState('idle');
  const [error, setError] = useState('');
  const remove = async () => {
    setStage('deleting');
    try {
      await api(`/v1beta/environments/${encodeURIComponent(id)}`, { method: 'DELETE' });
      setStage('deleted');
      onDeleted?.();
    } catch (failure) {
      setError(failure instanceof ApiError ? failure.message : String(failure));
      setStage('idle');
    }
  };
  if (stage === 'confirm')
    return html`<span class="confirm" role="group" aria-label=${`Delete ${id}?`}>
      <button type="button" class="danger" onClick=${remove} aria-label=${`Confirm delete ${id}`}>
        Confirm delete
      </button>
      <button type="button" class="quiet" onClick=${() => setStage('idle')}>Cancel</button>
    </span>`;
  return html`<span>
    <button
      type="button"
      class="danger-outline"
      disabled=${stage !== 'idle'}
      onClick=${() => setStage('confirm')}
      aria-label=${`Delete environment ${id}`}
    >
      ${stage === 'deleting' ? 'Deleting…' : stage === 'deleted' ? 'Deleted' : 'Delete'}
    </button>
    ${error && html`<span class="error" role="alert">${error}</span>`}
  </span>`;
}

function LastCall({ call }) {
  if (!call) return html`<span class="muted">none yet</span>`;
  const outcome = shownOutcome(call);
  return html`<span class=${outcome === 'blocked' ? 'denied-text' : ''}>
    <code>${call.tool}</code> <${Badge} value=${outcome} />
    <span class="muted"> ${ago(call.at)} ago</span>
  </span>`;
}

function Tiles({ data }) {
  const active = data.environments.filter((e) => e.status === 'active').length;
  return html`<ul class="tiles" aria-label="Summary">
    <li><strong>${data.environments.length}</strong> live environments</li>
    <li><strong>${active}</strong> running a call</li>
    <li><strong>${data.in_flight}</strong> interactions in flight</li>
    ${data.pool !== null && html`<li><strong>${data.pool}</strong> ready in the pool</li>`}
  </ul>`;
}

/** Whether an environment row matches the filters: tenant, last call's outcome, and free text. */
function matches(env, { tenant, outcome, text }) {
  if (tenant && env.tenant !== tenant) return false;
  // A call held for an approver is `waiting`, not blocked (docs/console.md, "Pages").
  if (outcome && (env.last_call ? shownOutcome(env.last_call) : undefined) !== outcome)
    return false;
  const needle = text.trim().toLowerCase();
  if (!needle) return true;
  return [env.environment_id, env.tenant, env.template, env.last_call?.tool, ...env.hook_groups]
    .filter(Boolean)
    .some((value) => String(value).toLowerCase().includes(needle));
}

/** Filters of the environments list (docs/console.md, "Pages"). */
function Filters({ environments, filters, setFilters }) {
  const tenants = [...new Set(environments.map((env) => env.tenant).filter(Boolean))].sort();
  const set = (key) => (event) => setFilters({ ...filters, [key]: event.currentTarget.value });
  return html`<form class="filters" role="search" onSubmit=${(event) => event.preventDefault()}>
    <label
      >Search
      <input
        id="environment-search"
        type="search"
        value=${filters.text}
        onInput=${set('text')}
        placeholder="id, gate, tool, tenant"
    /></label>
    <label
      >Tenant
      <select id="environment-tenant" value=${filters.tenant} onChange=${set('tenant')}>
        <option value="">all</option>
        ${tenants.map((name) => html`<option key=${name} value=${name}>${name}</option>`)}
      </select></label
    >
    <label
      >Last call
      <select id="environment-outcome" value=${filters.outcome} onChange=${set('outcome')}>
        <option value="">any</option>
        <option value="ok">ok</option>
        <option value="blocked">blocked</option>
        <option value="waiting">waiting</option>
        <option value="error">error</option>
      </select></label
    >
  </form>`;
}

export function EnvironmentsPage({ tick, onUnauthenticated }) {
  const { data, error } = useApi('/console/api/overview', [tick], onUnauthenticated);
  const [filters, setFilters] = useState({ tenant: '', outcome: '', text: '' });
  const shown = data ? data.environments.filter((env) => matches(env, filters)) : [];
  return html`
    <h1 tabindex="-1">Environments</h1>
    ${error && html`<p class="error" role="alert">${error.message}</p>`}
    ${
      !data
        ? html`<p>Loading…</p>`
        : html`
            <${Tiles} data=${data} />
            ${
              data.environments.length > 0 &&
              html`<${Filters}
                environments=${data.environments}
                filters=${filters}
                setFilters=${setFilters}
              />`
            }
            ${
              data.environments.length === 0
                ? html`<p class="empty">
                    No live environments. They appear here as interactions make them.
                  </p>`
                : html`<div class="table-wrap">
                    <table class="responsive" id="environments">
                      <caption class="visually-hidden">
                        Live environments
                      </caption>
                      <thead>
                        <tr>
                          <th scope="col">Environment</th>
                          <th scope="col">Tenant</th>
                          <th scope="col">Template</th>
                          <th scope="col">Vocabulary</th>
                          <th scope="col">Gates</th>
                          <th scope="col">Age</th>
                          <th scope="col">Status</th>
                          <th scope="col">Last call</th>
                          <th scope="col"><span class="visually-hidden">Actions</span></th>
                        </tr>
                      </thead>
                      <tbody>
                        ${shown.map(
                          (env) =>
                            html`<tr
                              key=${env.environment_id}
                              data-environment=${env.environment_id}
                            >
                              <${Cell} label="Environment">
                                <a
                                  href=${`#/environments/${encodeURIComponent(env.environment_id)}`}
                                  ><code>${env.environment_id}</code></a
                                >
                              <//>
                              <${Cell} label="Tenant">${env.tenant ?? '—'}<//>
                              <${Cell} label="Template">${env.template ?? env.source ?? '—'}<//>
                              <${Cell} label="Vocabulary">${env.vocabulary}<//>
                              <${Cell} label="Gates"
                                >${env.hook_groups.join(', ') || html`<span class="muted">none</span>`}<//
                              >
                              <${Cell} label="Age">${ago(env.created)}<//>
                              <${Cell} label="Status"><${Badge} value=${env.status} /><//>
                              <${Cell} label="Last call"><${LastCall} call=${env.last_call} /><//>
                              <${Cell} label="Actions"
                                ><${DeleteButton} id=${env.environment_id}
                              /><//>
                            </tr>`,
                        )}
                      </tbody>
                    </table>
                  </div>`
            }
          `
    }
  `;
}

export function EnvironmentPage({ id, tick, onUnauthenticated }) {
  const path = `/console/api/environments/${encodeURIComponent(id)}`;
  const { data, error } = useApi(path, [tick], onUnauthenticated);
  const gone = error instanceof ApiError && error.status === 404;
  const [filters, setFilters] = useState(NO_CALL_FILTERS);
  const calls = data ? data.calls.filter((call) => callMatches(call, filters)) : [];
  return html`
    <p class="crumbs"><a href="#/environments">Environments</a> ›</p>
    <h1 tabindex="-1"><code>${id}</code></h1>
    <p><a href=${`#/audit/${encodeURIComponent(id)}`} class="audit-link">Audit log</a></p>
    ${
      gone
        ? html`<p class="notice" role="status">
            This environment is gone: ${error.message}.
            <a href="#/environments">Back to the list</a>.
          </p>`
        : error && html`<p class="error" role="alert">${error.message}</p>`
    }
    ${
      !gone &&
      data &&
      html`
        <dl class="facts">
          <div>
            <dt>Status</dt>
            <dd><${Badge} value=${data.environment.status} /></dd>
          </div>
          ${
            data.environment.lost_reason &&
            html`<div>
              <dt>Lost</dt>
              <dd class="error">${data.environment.lost_reason}</dd>
            </div>`
          }
          ${
            data.environment.tenant &&
            html`<div>
              <dt>Tenant</dt>
              <dd>${data.environment.tenant}</dd>
            </div>`
          }
          <div>
            <dt>Vocabulary</dt>
            <dd>${data.environment.vocabulary}</dd>
          </div>
          <div>
            <dt>Gates</dt>
            <dd>${data.environment.hook_groups.join(', ') || 'none'}</dd>
          </div>
          <div>
            <dt>Made</dt>
            <dd>${data.environment.source ?? '—'} (${ms(data.environment.create_ms)})</dd>
          </div>
          <div>
            <dt>Created</dt>
            <dd>${clock(data.environment.created)} (${ago(data.environment.created)} ago)</dd>
          </div>
          <div>
            <dt>Expires</dt>
            <dd>${clock(data.environment.expires_at)}</dd>
          </div>
          <div>
            <dt>Calls</dt>
            <dd>${data.environment.calls} (${data.environment.denials} denied)</dd>
          </div>
        </dl>
        <p><${DeleteButton} id=${id} /></p>
        <${WaitingApprovals} id=${id} tick=${tick} onUnauthenticated=${onUnauthenticated} />
        ${
          data.interactions.length > 0 &&
          html` <h2>Interactions</h2>
            <ul class="links">
              ${data.interactions.map(
                (i) =>
                  html`<li key=${i.interaction_id}>
                    <a href=${`#/interactions/${encodeURIComponent(i.interaction_id)}`}
                      ><code>${shortId(i.interaction_id)}</code></a
                    >
                    <${Badge} value=${i.status} /> ${i.steps} steps, ${i.denials} denied
                  </li>`,
              )}
            </ul>`
        }
        <h2>Calls, newest first</h2>
        ${
          data.calls.length === 0
            ? html`<p class="empty">No calls yet.</p>`
            : html`<${CallFilters}
                  calls=${data.calls}
                  filters=${filters}
                  setFilters=${setFilters}
                />
                ${
                  calls.length === 0
                    ? html`<p class="empty">No call matches the filters.</p>`
                    : html`<ol class="timeline" aria-label="Calls">
                        ${calls.map((call) => html`<${CallTimeline} key=${call.call_id} call=${call} />`)}
                      </ol>`
                }`
        }
      `
    }
  `;
}
