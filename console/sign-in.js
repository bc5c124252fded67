import { useState } from 'preact/hooks';
import { api, ApiError } from './api.js';
import { html } from './format.js';

/** What went wrong, as it happened: a refused key, a tenant's key, an error answer, no answer. */
function signInFailure(failure) {
  if (!(failure instanceof ApiError)) return `The server could not be reached: ${failure.message}`;
  if (failure.status === 401)
    return 'That API key was refused. Use one of the keys hookbox serve was started with.';
  if (failure.status === 403)
    return `This key is not an admin key: the console shows every tenant's activity, so it needs a key with role admin (HOOKBOX_ADMIN_KEYS, or role: admin in --api-keys-file). The server said: ${failure.message}`;
  return `The server answered ${failure.status}: ${failure.message}`;
}

/** Asks for an API key and checks it against the server before keeping it for this tab. */
export function SignIn({ onSignedIn, notice }) {
  const [key, setKey] = useState('');
  const [error, setError] = useState(notice ?? '');
  const [busy, setBusy] = useState(false);
  const submit = async (event) => {
    event.preventDefault();
    setBusy(true);
    setError('');
    try {
      await api('/console/api/overview', { key: key.trim() });
      onSignedIn(key.trim());
    } catch (failure) {
      setError(signInFailure(failure));
    } finally {
      setBusy(false);
    }
  };
  return html`
    <main class="signin" id="main">
      <h1>hookbox console</h1>
      <form onSubmit=${submit} aria-describedby="signin-help">
        <label for="api-key">API key</label>
        <input
          id="api-key"
          name="api-key"
          type="password"
          autocomplete="off"
          required
          minlength="8"
          value=${key}
          onInput=${(event) => setKey(event.currentTarget.value)}
          aria-invalid=${error ? 'true' : 'false'}
          aria-describedby=${error ? 'signin-error' : undefined}
        />
        <button type="submit" disabled=${busy}>${busy ? 'Checking…' : 'Sign in'}</button>
        <p id="signin-help" class="hint">
          An admin key of <code>hookbox serve</code> (HOOKBOX_ADMIN_KEYS, or role: admin in
          --api-keys-file). It is kept in this tab only and forgotten when the tab closes.
        </p>
        ${error && html`<p id="signin-error" class="error" role="alert">${error}</p>`}
      </form>
    </main>
  `;
}
