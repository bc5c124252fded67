// Search and filters of an environment's calls (docs/console.md, "Pages"): by outcome (a held call
// is `waiting`), gate (a hook group that ran on the call) and tool, and free text over tool, reason
// and arguments.
import { html } from './format.js';

export const NO_CALL_FILTERS = { text: '', outcome: '', gate: '', tool: '' };

/**
 * A call a hook asked about (`ask`) is held for an approver, not denied (docs/dialects.md, "ask"):
 * it is observed as blocked, with an `ask` hook run and no `deny`.
 */
export function isWaiting(call) {
  const hooks = call.hooks ?? [];
  return (
    call.outcome === 'blocked' &&
    hooks.some((hook) => hook.outcome === 'ask') &&
    !hooks.some((hook) => hook.outcome === 'deny')
  );
}

/** A call's outcome as the console shows it: `ok`, `blocked`, `waiting` or `error`. */
export const shownOutcome = (call) => (isWaiting(call) ? 'waiting' : call.outcome);

/** Whether a call matches the filters. */
export function callMatches(call, { text, outcome, gate, tool }) {
  if (outcome && shownOutcome(call) !== outcome) return false;
  if (tool && call.tool !== tool) return false;
  if (gate && !(call.hooks ?? []).some((hook) => hook.group === gate)) return false;
  const needle = text.trim().toLowerCase();
  if (!needle) return true;
  return [call.tool, call.call_id, call.reason, JSON.stringify(call.args ?? {})]
    .filter(Boolean)
    .some((value) => String(value).toLowerCase().includes(needle));
}

/** Each value once, sorted, empty ones left out: the options of a filter. */
export const distinct = (values) => [...new Set(values.filter(Boolean))].sort();

/**
 * The `<select>`s of a filter form over `filters`: `select(id, label, key, options)`, with "any"
 * first (docs/console.md, "Pages"). Shared by the call and interaction filters.
 */
export function filterSelects(filters, setFilters) {
  const set = (key) => (event) => setFilters({ ...filters, [key]: event.currentTarget.value });
  return (id, label, key, options) =>
    html`<label
      >${label}
      <select id=${id} value=${filters[key]} onChange=${set(key)}>
        <option value="">any</option>
        ${options.map((value) => html`<option key=${value} value=${value}>${value}</option>`)}
      </select></label
    >`;
}

export function CallFilters({ calls, filters, setFilters }) {
  const set = (key) => (event) => setFilters({ ...filters, [key]: event.currentTarget.value });
  const tools = distinct(calls.map((call) => call.tool));
  const gates = distinct(calls.flatMap((call) => (call.hooks ?? []).map((hook) => hook.group)));
  const select = filterSelects(filters, setFilters);
  return html`<form class="filters" role="search" onSubmit=${(event) => event.preventDefault()}>
    <label
      >Search
      <input
        id="call-search"
        type="search"
        value=${filters.text}
        onInput=${set('text')}
        placeholder="tool, reason, arguments"
    /></label>
    ${select('call-outcome', 'Outcome', 'outcome', ['ok', 'blocked', 'waiting', 'error'])}
    ${select('call-gate', 'Gate', 'gate', gates)} ${select('call-tool', 'Tool', 'tool', tools)}
  </form>`;
}
