// The Interactions page (docs/console.md, "Pages"): the recent interactions (those kept in the
// state file from before a restart too), with a search and filters by status, the outcome of their
// calls, gate, tool and, for an admin who sees every tenant's, tenant.
import { useState } from 'preact/hooks';
import { useApi } from './api.js';
import { ago, Badge, Cell, html, shortId } from './format.js';
import { distinct, filterSelects } from './call-filters.js';

const NO_FILTERS = { text: '', status: '', outcome: '', gate: '', tool: '', tenant: '' };
const STATUSES = ['in_progress', 'requires_action', 'completed', 'failed', 'cancelled'];
const OUTCOMES = ['ok', 'blocked', 'waiting', 'error'];

/** Whether an interaction matches the filters. */
function matches(i, { text, status, outcome, gate, tool, tenant }) {
  if (status && i.status !== status) return false;
  if (outcome && !(i.call_outcomes ?? []).includes(outcome)) return false;
  if (gate && !(i.gates ?? []).includes(gate)) return false;
  if (tool && !(i.tools ?? []).includes(tool)) return false;
  if (tenant && i.tenant !== tenant) return false;
  const needle = text.trim().toLowerCase();
  if (!needle) return true;
  return [
    i.interaction_id,
    i.agent,
    i.environment_id,
    i.tenant,
    ...(i.tools ?? []),
    ...(i.gates ?? []),
  ]
    .filter(Boolean)
    .some((value) => String(value).toLowerCase().includes(needle));
}

function Filters({ interactions, filters, setFilters }) {
  const set = (key) => (event) => setFilters({ ...filters, [key]: event.currentTarget.value });
  const tenants = distinct(interactions.map((i) => i.tenant));
  const select = filterSelects(filters, setFilters);
  return html`<form class="filters" role="search" onSubmit=${(event) => event.preventDefault()}>
    <label
      >Search
      <input
        id="interaction-search"
        type="search"
        value=${filters.text}
        onInput=${set('text')}
        placeholder="id, agent, environment, tool, gate"
    /></label>
    ${select('interaction-status', 'Status', 'status', STATUSES)}
    ${select('interaction-outcome', 'A call', 'outcome', OUTCOMES)}
    ${select('interaction-gate', 'Gate', 'gate', distinct(interactions.flatMap((i) => i.gates ?? [])))}
    ${select('interaction-tool', 'Tool', 'tool', distinct(interactions.flatMap((i) => i.tools ?? [])))}
    ${tenants.length > 0 && select('interaction-tenant', 'Tenant', 'tenant', tenants)}
  </form>`;
}

export function InteractionsPage({ tick, onUnauthenticated }) {
  const { data, error } = useApi('/console/api/interactions', [tick], onUnauthenticated);
  const [filters, setFilters] = useState(NO_FILTERS);
  const all = data?.interactions ?? [];
  const shown = all.filter((i) => matches(i, filters));
  const waiting = all.filter((i) => i.status === 'requires_action').length;
  return html`
    <h1 tabindex="-1">Interactions</h1>
    <p class="hint">
      The most recent ones, newest first (with a state file, those from before a restart too).
    </p>
    ${error && html`<p class="error" role="alert">${error.message}</p>`}
    ${
      waiting > 0 &&
      html`<p class="notice" role="status">
        ${waiting} interaction(s) waiting for an approval (status <code>requires_action</code>):
        open one to see the call.
      </p>`
    }
    ${
      data &&
      (all.length === 0
        ? html`<p class="empty">No interactions yet.</p>`
        : html`<${Filters} interactions=${all} filters=${filters} setFilters=${setFilters} />
            <p class="muted small" role="status">${shown.length} of ${all.length} shown</p>
            <div class="table-wrap">
              <table class="responsive" id="interactions">
                <caption class="visually-hidden">
                  Recent interactions
                </caption>
                <thead>
                  <tr>
                    <th scope="col">Interaction</th>
                    <th scope="col">Status</th>
                    <th scope="col">Tenant</th>
                    <th scope="col">Agent</th>
                    <th scope="col">Environment</th>
                    <th scope="col">Tools</th>
                    <th scope="col">Steps</th>
                    <th scope="col">Denied</th>
                    <th scope="col">Started</th>
                  </tr>
                </thead>
                <tbody>
                  ${shown.map(
                    (i) =>
                      html`<tr
                        key=${i.interaction_id}
                        data-interaction=${i.interaction_id}
                        class=${i.denials > 0 ? 'denied-row' : ''}
                      >
                        <${Cell} label="Interaction"
                          ><a href=${`#/interactions/${encodeURIComponent(i.interaction_id)}`}
                            ><code>${shortId(i.interaction_id)}</code></a
                          ><//
                        >
                        <${Cell} label="Status"><${Badge} value=${i.status} /><//>
                        <${Cell} label="Tenant">${i.tenant ?? '—'}<//>
                        <${Cell} label="Agent">${i.agent}<//>
                        <${Cell} label="Environment"
                          ><a href=${`#/environments/${encodeURIComponent(i.environment_id)}`}
                            ><code>${shortId(i.environment_id)}</code></a
                          ><//
                        >
                        <${Cell} label="Tools">${(i.tools ?? []).join(', ') || '—'}<//>
                        <${Cell} label="Steps">${i.steps}<//>
                        <${Cell} label="Denied">${i.denials}<//>
                        <${Cell} label="Started">${ago(i.created)} ago<//>
                      </tr>`,
                  )}
                </tbody>
              </table>
            </div>`)
    }
  `;
}
