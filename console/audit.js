// An environment's audit log (docs/console.md, "Audit log"): the append-only record the controller
// writes, newest first. A tool's output is shown as text (docs/console.md, "Tool output").
import { ApiError, useApi } from './api.js';
import { Badge, clock, html, outputText } from './format.js';

function summary(entry) {
  switch (entry.kind) {
    case 'tool_call':
      return html`<strong>${entry.tool_call.name}</strong>
        ${entry.blocked && html` <${Badge} value="blocked" />`}
        ${entry.reason && html` <span class="reason">${entry.reason}</span>`}
        ${entry.actor && html` <span class="muted">by ${entry.actor}</span>`}
        <pre class="args">
${JSON.stringify(entry.rewritten_args ?? entry.tool_call.args, null, 2)}</pre>
        ${entry.result !== undefined && html`<pre class="result">${outputText(entry.result)}</pre>`}
        ${entry.error && html`<p class="error">${entry.error}</p>`}`;
    case 'hook':
    case 'lifecycle_hook':
      return html`<code>${entry.handler}</code> (${entry.event})
        <${Badge} value=${entry.outcome} /> ${entry.reason ?? ''}
        <span class="muted">${entry.duration_ms} ms</span>`;
    case 'egress':
      return html`<code>${entry.method} ${entry.target}</code>
        <${Badge} value=${entry.decision} /> ${entry.detail ?? ''}`;
    case 'environment':
      return html`<strong>${entry.event}</strong>
        ${entry.actor && html` <span class="muted">by ${entry.actor}</span>`}`;
    default:
      return html`<code>${JSON.stringify(entry)}</code>`;
  }
}

export function AuditPage({ id, tick, onUnauthenticated }) {
  const path = `/console/api/environments/${encodeURIComponent(id)}/audit`;
  const { data, error } = useApi(path, [tick], onUnauthenticated);
  const gone = error instanceof ApiError && error.status === 404;
  return html`
    <p class="crumbs">
      <a href="#/environments">Environments</a> ›
      <a href=${`#/environments/${encodeURIComponent(id)}`}><code>${id}</code></a> ›
    </p>
    <h1 tabindex="-1">Audit log</h1>
    ${
      gone
        ? html`<p class="notice" role="status">No audit log: ${error.message}.</p>`
        : error && html`<p class="error" role="alert">${error.message}</p>`
    }
    ${
      data &&
      html`<p class="hint">
          ${data.total} entries, newest
          first${
            data.total > data.entries.length
              ? ` (the newest ${data.entries.length} shown; the whole log is in the file)`
              : ''
          }.
        </p>
        <ol class="audit">
          ${data.entries.map(
            (entry, index) =>
              html`<li key=${index} class=${`audit-${entry.kind}`}>
                <span class="muted">${clock(entry.at)}</span>
                <span class="kind">${entry.kind}</span>
                ${summary(entry)}
              </li>`,
          )}
        </ol>`
    }
  `;
}
