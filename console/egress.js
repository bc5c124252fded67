import { useApi } from './api.js';
import { Badge, Cell, clock, html, shortId } from './format.js';

export function EgressPage({ tick, onUnauthenticated }) {
  const { data, error } = useApi('/console/api/egress', [tick], onUnauthenticated);
  return html`
    <h1 tabindex="-1">Egress decisions</h1>
    <p class="hint">
      Connections through the egress proxy of environments with a <code>network.allowlist</code>,
      newest first. Header values are never recorded.
    </p>
    ${error && html`<p class="error" role="alert">${error.message}</p>`}
    ${
      data &&
      (data.egress.length === 0
        ? html`<p class="empty">
            No egress yet. Environments without an allowlist have no network at all.
          </p>`
        : html`<div class="table-wrap">
            <table class="responsive">
              <caption class="visually-hidden">
                Egress decisions
              </caption>
              <thead>
                <tr>
                  <th scope="col">Time</th>
                  <th scope="col">Environment</th>
                  <th scope="col">Request</th>
                  <th scope="col">Decision</th>
                  <th scope="col">Rule</th>
                  <th scope="col">Detail</th>
                </tr>
              </thead>
              <tbody>
                ${data.egress.map(
                  (e, index) =>
                    html`<tr key=${index} class=${e.decision === 'refused' ? 'denied-row' : ''}>
                      <${Cell} label="Time">${clock(e.at)}<//>
                      <${Cell} label="Environment"
                        ><a href=${`#/environments/${encodeURIComponent(e.environment_id)}`}
                          ><code>${shortId(e.environment_id)}</code></a
                        ><//
                      >
                      <${Cell} label="Request"
                        ><code>${e.method} ${e.target}</code>
                        <span class="muted small">${e.form}</span><//
                      >
                      <${Cell} label="Decision"><${Badge} value=${e.decision} /><//>
                      <${Cell} label="Rule">${e.rule}<//>
                      <${Cell} label="Detail">${e.detail ?? ''}<//>
                    </tr>`,
                )}
              </tbody>
            </table>
          </div>`)
    }
  `;
}
