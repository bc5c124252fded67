// The hookbox console (docs/console.md): Preact + htm from node_modules, no build step.
import { render } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { api, openEvents, session } from './api.js';
import { AuditPage } from './audit.js';
import { EgressPage } from './egress.js';
import { EnvironmentPage, EnvironmentsPage } from './environments.js';
import { html } from './format.js';
import { GateHealthPage } from './health.js';
import { InteractionPage } from './interactions.js';
import { InteractionsPage } from './interactions-list.js';
import { CredentialsPage, SnapshotsPage, TemplatesPage } from './resources.js';
import { SignIn } from './sign-in.js';

const NAV = [
  ['#/environments', 'Environments'],
  ['#/interactions', 'Interactions'],
  ['#/gates', 'Gate health'],
  ['#/egress', 'Egress'],
  ['#/snapshots', 'Snapshots'],
  ['#/credentials', 'Credentials'],
  ['#/templates', 'Templates'],
];

function parseRoute(hash) {
  const parts = hash.replace(/^#\/?/, '').split('/').filter(Boolean).map(decodeURIComponent);
  const [page = 'environments', id] = parts;
  return { page, id };
}

function useRoute() {
  const [route, setRoute] = useState(parseRoute(location.hash));
  useEffect(() => {
    const changed = () => setRoute(parseRoute(location.hash));
    addEventListener('hashchange', changed);
    // A hash changed between the first render and this effect fired no event we heard: read it now.
    changed();
    return () => removeEventListener('hashchange', changed);
  }, []);
  return route;
}

/**
 * A counter that goes up when the live stream says something changed; pages fetch again on it.
 * Bursts (a call's hook runs, steps) are folded into one refresh every 250 ms.
 */
function useLiveTick(onUnauthenticated) {
  const [tick, setTick] = useState(0);
  const [state, setState] = useState('connecting');
  const pending = useRef(undefined);
  useEffect(() => {
    const stop = openEvents({
      onEvent: () => {
        pending.current ??= setTimeout(() => {
          pending.current = undefined;
          setTick((value) => value + 1);
        }, 250);
      },
      onState: (next) => {
        setState(next);
        if (next === 'unauthenticated') onUnauthenticated();
      },
    });
    return () => {
      stop();
      clearTimeout(pending.current);
    };
  }, []);
  return { tick, state };
}

/** `keyed`: signed in with a key; a server without keys has nothing to sign out of. */
function Shell({ keyed, onSignOut, onUnauthenticated }) {
  const route = useRoute();
  const { tick, state } = useLiveTick(onUnauthenticated);
  const mainRef = useRef(null);
  // After a page change, focus goes to the page's heading so screen readers announce it.
  useEffect(() => {
    mainRef.current?.querySelector('h1')?.focus();
  }, [route.page, route.id]);
  const props = { tick, id: route.id, onUnauthenticated };
  let page;
  if (route.page === 'environments' && route.id) page = html`<${EnvironmentPage} ...${props} />`;
  else if (route.page === 'interactions' && route.id)
    page = html`<${InteractionPage} ...${props} />`;
  else if (route.page === 'interactions') page = html`<${InteractionsPage} ...${props} />`;
  else if (route.page === 'gates') page = html`<${GateHealthPage} ...${props} />`;
  else if (route.page === 'audit' && route.id) page = html`<${AuditPage} ...${props} />`;
  else if (route.page === 'snapshots') page = html`<${SnapshotsPage} ...${props} />`;
  else if (route.page === 'credentials') page = html`<${CredentialsPage} ...${props} />`;
  else if (route.page === 'templates') page = html`<${TemplatesPage} ...${props} />`;
  else if (route.page === 'egress') page = html`<${EgressPage} ...${props} />`;
  else page = html`<${EnvironmentsPage} ...${props} />`;
  return html`
    <a
      class="skip"
      href="#main"
      onClick=${(event) => {
        event.preventDefault();
        mainRef.current?.focus();
      }}
      >Skip to content</a
    >
    <header class="top">
      <span class="brand">hookbox</span>
      <nav aria-label="Console">
        <ul>
          ${NAV.map(
            ([href, label]) =>
              html`<li>
                <a href=${href} aria-current=${href === `#/${route.page}` ? 'page' : undefined}
                  >${label}</a
                >
              </li>`,
          )}
        </ul>
      </nav>
      <span class=${`live live-${state}`} role="status" aria-live="polite">
        ${state === 'live' ? 'Live' : state === 'connecting' ? 'Connecting…' : 'Reconnecting…'}
      </span>
      ${keyed && html`<button type="button" class="quiet" onClick=${onSignOut}>Sign out</button>`}
    </header>
    <main id="main" tabindex="-1" ref=${mainRef}>${page}</main>
  `;
}

function App() {
  const [key, setKey] = useState(session.key);
  const [open, setOpen] = useState(undefined);
  const [notice, setNotice] = useState('');
  // A server with no key configured (loopback only) needs no sign-in.
  useEffect(() => {
    if (key) return;
    api('/console/api/overview', { key: '' }).then(
      () => setOpen(true),
      () => setOpen(false),
    );
  }, [key]);
  const signOut = useCallback(() => {
    session.key = '';
    setKey('');
    setOpen(false);
  }, []);
  const unauthenticated = useCallback(() => {
    session.key = '';
    setKey('');
    setOpen(false);
    setNotice('Your key is no longer accepted; sign in again.');
  }, []);
  if (!key && open === undefined) return html`<main class="signin"><p>Loading…</p></main>`;
  if (!key && !open)
    return html`<${SignIn}
      notice=${notice}
      onSignedIn=${(value) => {
        session.key = value;
        setNotice('');
        setKey(value);
      }}
    />`;
  return html`<${Shell}
    key=${key}
    keyed=${Boolean(key)}
    onSignOut=${signOut}
    onUnauthenticated=${unauthenticated}
  />`;
}

render(html`<${App} />`, document.getElementById('app'));
