// Small formatting helpers. Everything the console shows goes through Preact's text rendering:
// hook output is never turned into markup.
import { h } from 'preact';
import htm from 'htm';

export const html = htm.bind(h);

export function ago(iso, now = Date.now()) {
  if (!iso) return '—';
  const seconds = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours} h ${minutes % 60} min`;
  return `${Math.floor(hours / 24)} d`;
}

export const ms = (value) =>
  value === null || value === undefined
    ? '—'
    : `${value < 10 ? value.toFixed(1) : Math.round(value)} ms`;

export const percent = (fraction) =>
  fraction === 0 ? '0 %' : `${(fraction * 100).toFixed(fraction < 0.1 ? 1 : 0)} %`;

export const clock = (iso) => (iso ? new Date(iso).toLocaleTimeString() : '—');

/** A badge for an outcome or status; the word is always written, colour only helps. */
export function Badge({ value }) {
  return html`<span class=${`badge badge-${value}`}>${value}</span>`;
}

/** A table cell that shows its column's name on narrow screens (see style.css). */
export function Cell({ label, children }) {
  return html`<td data-label=${label}>${children}</td>`;
}

export const shortId = (id) => (id && id.length > 14 ? `${id.slice(0, 12)}…` : id);

/** A result's text: a string as it is, stdout/stderr/output fields as text, anything else as JSON. */
export function outputText(result) {
  if (result === undefined || result === null) return '';
  if (typeof result === 'string') return result;
  const texts = ['output', 'stdout', 'stderr', 'content', 'text', 'error']
    .filter((field) => typeof result[field] === 'string' && result[field] !== '')
    .map(
      (field) =>
        (field === 'output' || field === 'content' || field === 'text' ? '' : `${field}:\n`) +
        result[field],
    );
  return texts.length > 0 ? texts.join('\n') : JSON.stringify(result, null, 2);
}
