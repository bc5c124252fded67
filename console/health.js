import { useState } from 'preact/hooks';
import { useApi } from './api.js';
import { Cell, html, ms, percent } from './format.js';

/** Error, timeout and unrecognized answers let a call through: a gate that fails open. */
const failingOpen = (row) => row.rates.error + row.rates.timeout + row.rates.unrecognized > 0;

export function GateHealthPage({ tick, onUnauthenticated }) {
  const [span, setSpan] = useState('hour');
  const { data, error } = useApi('/console/api/gate-health', [tick], onUnauthenticated);
  const rows = data?.[span] ?? [];
  return html`
    <h1 tabindex="-1">Gate health</h1>
    <p class="hint">
      Hook runs per hook group since this server started (at most a day). Error, timeout and
      unrecognized answers let the call through unless the handler says${' '}
      <code>on_error: "deny"</code>.
    </p>
    <fieldset class="switch">
      <legend>Window</legend>
      ${[
        ['hour', 'Last hour'],
        ['day', 'Last day'],
      ].map(
        ([value, label]) =>
          html`<label key=${value}>
            <input
              type="radio"
              name="span"
              value=${value}
              checked=${span === value}
              onChange=${() => setSpan(value)}
            />
            ${label}
          </label>`,
      )}
    </fieldset>
    ${error && html`<p class="error" role="alert">${error.message}</p>`}
    ${
      data &&
      (rows.length === 0
        ? html`<p class="empty">No hook ran in this window.</p>`
        : html`<div class="table-wrap">
            <table class="responsive" id="gate-health">
              <caption class="visually-hidden">
                Gate health, ${span === 'hour' ? 'last hour' : 'last day'}
              </caption>
              <thead>
                <tr>
                  <th scope="col">Hook group</th>
                  <th scope="col">Runs</th>
                  <th scope="col">Deny</th>
                  <th scope="col">Error</th>
                  <th scope="col">Timeout</th>
                  <th scope="col">Unrecognized</th>
                  <th scope="col">p50</th>
                  <th scope="col">p95</th>
                </tr>
              </thead>
              <tbody>
                ${rows.map(
                  (row) =>
                    html`<tr
                      key=${row.source + row.group}
                      class=${failingOpen(row) ? 'warn-row' : ''}
                    >
                      <${Cell} label="Hook group"
                        >${row.group}
                        ${row.source === 'controller' && html`<span class="muted small">(controller)</span>`}
                        ${failingOpen(row) && html` <span class="badge badge-error">fails open</span>`}<//
                      >
                      <${Cell} label="Runs">${row.runs}<//>
                      <${Cell} label="Deny">${percent(row.rates.deny)}<//>
                      <${Cell} label="Error">${percent(row.rates.error)}<//>
                      <${Cell} label="Timeout">${percent(row.rates.timeout)}<//>
                      <${Cell} label="Unrecognized">${percent(row.rates.unrecognized)}<//>
                      <${Cell} label="p50">${ms(row.p50_ms)}<//>
                      <${Cell} label="p95">${ms(row.p95_ms)}<//>
                    </tr>`,
                )}
              </tbody>
            </table>
          </div>`)
    }
  `;
}
