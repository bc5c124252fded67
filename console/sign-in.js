import { useState } from 'preact/hooks';
import { api, ApiError } from './api.js';
import { html } from './format.js';

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
      setError(
        failure instanceof ApiError && failure.status === 401
          ? 'That API key was refused. Use one of the keys hookbox serve was started with.'
          : `The server could not be reached: ${failure.message}`,
      );
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
          The key of <code>hookbox serve</code> (HOOKBOX_API_KEYS or --api-keys-file). It is kept in
          this tab only and forgotten when the tab closes.
        </p>
        ${error && html`<p id="signin-error" class="error" role="alert">${error}</p>`}
      </form>
    </main>
  `;
}
