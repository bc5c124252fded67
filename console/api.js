// Talking to hookbox serve. The API key lives in this tab's sessionStorage only: it is sent in the
// x-goog-api-key header, never in a URL (docs/console.md, "Signing in").
import { useEffect, useState } from 'preact/hooks';

const KEY_NAME = 'hookbox.console.apiKey';

export const session = {
  get key() {
    return sessionStorage.getItem(KEY_NAME) ?? '';
  },
  set key(value) {
    if (value) sessionStorage.setItem(KEY_NAME, value);
    else sessionStorage.removeItem(KEY_NAME);
  },
};

/**
 * An error answer of the API, Google's envelope (docs/contract.md §9): `{error: {code: <HTTP
 * status>, message, status: "NOT_FOUND", details: [{reason: <hookbox code>, …}]}}`. `status` here is
 * the HTTP status; `code` is hookbox's literal code (`not_found`, `unauthenticated`, …).
 */
export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/**
 * The one place that reads an error body (docs/console.md): its message and hookbox code (the
 * ErrorInfo detail's `reason`), from the HTTP status and the parsed body, or the raw text.
 */
export function errorOf(httpStatus, body, text) {
  const error = (body && body.error) || {};
  const info = (Array.isArray(error.details) ? error.details : []).find(
    (detail) => detail && typeof detail.reason === 'string',
  );
  return new ApiError(
    httpStatus,
    info?.reason ?? 'http_error',
    error.message ?? (text || `HTTP ${httpStatus}`),
  );
}

const headers = (key) => (key ? { 'x-goog-api-key': key } : {});

/** GET, DELETE or POST (a JSON `body`) an endpoint with the session's key (or the one given). */
export async function api(path, { method = 'GET', key = session.key, signal, body } = {}) {
  const response = await fetch(path, {
    method,
    headers:
      body === undefined ? headers(key) : { ...headers(key), 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal,
    cache: 'no-store',
  });
  const text = await response.text();
  let answer;
  try {
    answer = text ? JSON.parse(text) : {};
  } catch {
    answer = {};
  }
  if (!response.ok) throw errorOf(response.status, answer, text);
  return answer;
}

/**
 * The live stream (`GET /console/api/events`, text/event-stream) read with fetch, since EventSource
 * cannot send a header and the key must stay out of the URL. Reconnects with a growing delay.
 * Returns a function that stops it.
 */
export function openEvents({ onEvent, onState }) {
  const controller = new AbortController();
  let delay = 500;
  const run = async () => {
    while (!controller.signal.aborted) {
      try {
        const response = await fetch('/console/api/events', {
          headers: { ...headers(session.key), accept: 'text/event-stream' },
          signal: controller.signal,
          cache: 'no-store',
        });
        if (response.status === 401) {
          onState('unauthenticated');
          return;
        }
        if (!response.ok || !response.body) throw new Error(`status ${response.status}`);
        onState('live');
        delay = 500;
        const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
        let buffer = '';
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buffer += value;
          let end;
          while ((end = buffer.indexOf('\n\n')) >= 0) {
            const frame = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            const data = frame
              .split('\n')
              .filter((line) => line.startsWith('data:'))
              .map((line) => line.slice(5).trimStart())
              .join('\n');
            if (data) onEvent(JSON.parse(data));
          }
        }
      } catch {
        if (controller.signal.aborted) return;
      }
      onState('reconnecting');
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay = Math.min(delay * 2, 10_000);
    }
  };
  void run();
  return () => controller.abort();
}

/** Fetches `path` again whenever `deps` change; a 401 signs out. */
export function useApi(path, deps, onUnauthenticated) {
  const [state, setState] = useState({ data: undefined, error: undefined });
  useEffect(() => {
    if (!path) return;
    const abort = new AbortController();
    api(path, { signal: abort.signal }).then(
      (data) => setState({ data, error: undefined }),
      (error) => {
        if (abort.signal.aborted) return;
        if (error instanceof ApiError && error.status === 401) onUnauthenticated();
        else setState((old) => ({ data: old.data, error }));
      },
    );
    return () => abort.abort();
  }, [path, ...deps]);
  return state;
}
