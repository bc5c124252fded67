// Views of what hookbox keeps besides environments (docs/console.md, "What it shows"): snapshots,
// credentials (names and header names only: the API never answers with a value), templates and the
// warm pools.
import { useApi } from './api.js';
import { ago, Badge, Cell, html, shortId } from './format.js';

const size = (bytes) =>
  bytes === null || bytes === undefined ? '—' : `${(bytes / 1024 / 1024).toFixed(1)} MB`;

const envLink = (id) =>
  html`<a href=${`#/environments/${encodeURIComponent(id)}`}><code>${shortId(id)}</code></a>`;

function Table({ caption, columns, rows }) {
  return html`<div class="table-wrap">
    <table class="responsive">
      <caption class="visually-hidden">
        ${caption}
      </caption>
      <thead>
        <tr>
          ${columns.map((column) => html`<th scope="col">${column}</th>`)}
        </tr>
      </thead>
      <tbody>
        ${rows}
      </tbody>
    </table>
  </div>`;
}

function Loaded({ error, data, children }) {
  if (error) return html`<p class="error" role="alert">${error.message}</p>`;
  if (!data) return html`<p class="muted">Loading…</p>`;
  return children();
}

export function SnapshotsPage({ tick, onUnauthenticated }) {
  const { data, error } = useApi('/console/api/snapshots', [tick], onUnauthenticated);
  return html`
    <h1 tabindex="-1">Snapshots</h1>
    <p class="hint">
      Saved workspaces and gates (<code>POST /v1beta/environments/{id}/snapshots</code>); each
      expires at its time and can be forked into new environments.
    </p>
    <${Loaded} error=${error} data=${data}>
      ${() =>
        data.snapshots.length === 0
          ? html`<p class="empty">No snapshots.</p>`
          : html`<${Table}
              caption="Snapshots"
              columns=${['Snapshot', 'Environment', 'Tenant', 'Template', 'Age', 'Expires', 'Size']}
              rows=${data.snapshots.map(
                (s) =>
                  html`<tr key=${s.snapshot_id}>
                    <${Cell} label="Snapshot"><code>${s.snapshot_id}</code><//>
                    <${Cell} label="Environment">${envLink(s.environment_id)}<//>
                    <${Cell} label="Tenant">${s.tenant ?? '—'}<//>
                    <${Cell} label="Template">${s.template ?? 'default'}<//>
                    <${Cell} label="Age">${ago(s.created)}<//>
                    <${Cell} label="Expires">${new Date(s.expires_at).toLocaleString()}<//>
                    <${Cell} label="Size">${size(s.size_bytes)}<//>
                  </tr>`,
              )}
            />`}
    <//>
  `;
}

export function CredentialsPage({ tick, onUnauthenticated }) {
  const { data, error } = useApi('/console/api/credentials', [tick], onUnauthenticated);
  return html`
    <h1 tabindex="-1">Credentials</h1>
    <p class="hint">
      Every tenant's stored credentials. Values are sealed with <code>HOOKBOX_SECRET_KEY</code> and
      never leave the server: not in the API, not here.
    </p>
    <${Loaded} error=${error} data=${data}>
      ${() =>
        data.credentials.length === 0
          ? html`<p class="empty">No credentials.</p>`
          : html`<${Table}
              caption="Credentials"
              columns=${['Name', 'Id', 'Tenant', 'Type', 'Holds', 'Age']}
              rows=${data.credentials.map(
                (c) =>
                  html`<tr key=${`${c.id}@${c.tenant}`}>
                    <${Cell} label="Name"><strong>${c.name}</strong><//>
                    <${Cell} label="Id"><code>${c.id}</code><//>
                    <${Cell} label="Tenant">${c.tenant ?? '—'}<//>
                    <${Cell} label="Type">${c.type ?? 'hookbox'}<//>
                    <${Cell} label="Holds"
                      >${
                        [
                          c.has_value ? 'a value' : '',
                          c.header_names.length ? `headers ${c.header_names.join(', ')}` : '',
                        ]
                          .filter(Boolean)
                          .join('; ') || '—'
                      }<//
                    >
                    <${Cell} label="Age">${ago(c.created)}<//>
                  </tr>`,
              )}
            />`}
    <//>
  `;
}

export function TemplatesPage({ tick, onUnauthenticated }) {
  const { data, error } = useApi('/console/api/templates', [tick], onUnauthenticated);
  return html`
    <h1 tabindex="-1">Templates and warm pool</h1>
    <${Loaded} error=${error} data=${data}>
      ${() => html`
        <h2>Warm pool</h2>
        ${
          data.pools.length === 0
            ? html`<p class="empty">
                No warm pool: every environment starts cold (<code>--pool-size</code>).
              </p>`
            : html`<${Table}
                caption="Warm pools"
                columns=${['Template', 'Ready', 'Starting', 'Target']}
                rows=${data.pools.map(
                  (p) =>
                    html`<tr key=${p.template} class="pool-row">
                      <${Cell} label="Template">${p.template}<//>
                      <${Cell} label="Ready"><strong>${p.ready}</strong><//>
                      <${Cell} label="Starting">${p.starting}<//>
                      <${Cell} label="Target">${p.target}<//>
                    </tr>`,
                )}
              />`
        }
        <h2>Templates</h2>
        <${Table}
          caption="Templates"
          columns=${['Name', 'Kind', 'Image', 'State', 'Size']}
          rows=${data.templates.map(
            (t) =>
              html`<tr key=${t.name}>
                <${Cell} label="Name"><strong>${t.name}</strong><//>
                <${Cell} label="Kind">${t.kind}<//>
                <${Cell} label="Image"><code>${t.image ?? '—'}</code><//>
                <${Cell} label="State"
                  >${
                    t.stale
                      ? html`<${Badge} value="stale" />`
                      : t.image
                        ? html`<${Badge} value="current" />`
                        : '—'
                  }<//
                >
                <${Cell} label="Size">${size(t.size_bytes)}<//>
              </tr>`,
          )}
        />
      `}
    <//>
  `;
}
