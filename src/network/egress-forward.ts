// Forwarding one absolute-form request (plain HTTP, or a hook's over TLS) on its vetted upstream connection.
import {
  request as httpRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type OutgoingHttpHeaders,
  type ServerResponse,
} from 'node:http';
import type { AllowlistEntry } from './allowlist.js';
import type { EgressRecord } from '../record/egress-record.js';
import type { Recorder } from './egress-recorder.js';
import { refuseResponse } from './egress-refusal.js';
import type { Upstream } from './egress-upstream.js';
import { withoutBrackets, type Vetted } from './egress-vetting.js';

/** Headers that belong to one hop and are never forwarded. */
const HOP_HEADERS = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authorization',
  'proxy-authenticate',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

export function forwardHeaders(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const connectionTokens = String(headers.connection ?? '')
    .split(',')
    .map((token) => token.trim().toLowerCase())
    .filter(Boolean);
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    const lower = name.toLowerCase();
    if (HOP_HEADERS.has(lower) || connectionTokens.includes(lower)) continue;
    if (lower.startsWith('proxy-') || lower.startsWith('x-hookbox-')) continue;
    out[lower] = value;
  }
  return out;
}

/**
 * Sets the `transform` headers of a hook's allowlist entry, replacing any of the same name whatever
 * its case; returns the names set (the record holds names, never values).
 */
export function injectTransformHeaders(
  headers: OutgoingHttpHeaders,
  entry: AllowlistEntry,
): string[] {
  const injected: string[] = [];
  for (const [name, value] of Object.entries(entry.transform ?? {})) {
    for (const existing of Object.keys(headers))
      if (existing.toLowerCase() === name.toLowerCase()) delete headers[existing];
    headers[name] = value;
    injected.push(name);
  }
  return injected;
}

/**
 * Swaps credential placeholders (docs/credentials.md, "Placeholders") in header values for the
 * values the matching entry holds: only tokens of the entry's own credential, so a token sent to
 * any other domain goes out as the meaningless token it is. Returns the names of headers changed.
 */
export function swapPlaceholders(headers: OutgoingHttpHeaders, entry: AllowlistEntry): string[] {
  const swaps = Object.entries(entry.placeholders ?? {});
  if (swaps.length === 0) return [];
  const changed: string[] = [];
  const swap = (value: string) =>
    swaps.reduce((text, [token, secret]) => text.split(token).join(secret), value);
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || name === 'host') continue;
    const before = Array.isArray(value) ? value : [String(value)];
    const after = before.map(swap);
    if (after.every((text, index) => text === before[index])) continue;
    headers[name] = Array.isArray(value) ? after : after[0];
    changed.push(name);
  }
  return changed;
}

/**
 * An entry of an `oauth2` credential with its current access token (traded when due,
 * credentials/oauth2-tokens.ts) as the hook requests' `Authorization` and its placeholders' value.
 */
export async function withAccessToken(entry: AllowlistEntry): Promise<AllowlistEntry> {
  if (!entry.oauth2) return entry;
  const token = await entry.oauth2.accessToken();
  return {
    ...entry,
    transform: { ...entry.transform, Authorization: `Bearer ${token}` },
    placeholders: {
      ...entry.placeholders,
      ...Object.fromEntries(entry.oauth2.placeholders.map((placeholder) => [placeholder, token])),
    },
  };
}

/** A vetted absolute-form request: where it goes and whether it is a hook's. */
export interface ForwardTarget {
  url: URL;
  method: string;
  port: number;
  /** An `http` hook's request (`https://`, with the hook token): gets the entry's `transform` headers. */
  hook: boolean;
  /** The record's and refusals' `host:port/path`. */
  target: string;
}

/**
 * Sends the request on its vetted upstream connection and pipes the answer back, counting bytes
 * both ways; records it when the answer ends, when it fails (502) or when the client leaves.
 */
export function forwardRequest(
  request: IncomingMessage,
  response: ServerResponse,
  recorder: Recorder,
  vetted: Vetted,
  upstream: Upstream,
  { url, method, port, hook, target }: ForwardTarget,
  idleTimeoutMs: number,
): void {
  const host = url.hostname;
  const headers: OutgoingHttpHeaders = forwardHeaders(request.headers);
  headers.host = url.host;
  const swapped = swapPlaceholders(headers, vetted.entry);
  const injected = hook ? injectTransformHeaders(headers, vetted.entry) : [];
  const fields: Partial<EgressRecord> = {
    rule: vetted.entry.domain,
    upstream: `${upstream.address}:${port}`,
    ...(injected.length > 0 ? { injected_headers: injected } : {}),
    ...(swapped.length > 0 ? { placeholder_headers: swapped } : {}),
  };
  let bytesOut = 0;
  let bytesIn = 0;
  const outgoing = httpRequest({
    method,
    path: `${url.pathname}${url.search}`,
    headers,
    setHost: false,
    // No agent: the request runs on the connection made to the vetted address, nothing else.
    createConnection: () => upstream.socket,
  });
  outgoing.setTimeout(idleTimeoutMs, () => outgoing.destroy(new Error('idle timeout')));
  const abandon = () => {
    if (!response.writableFinished) {
      outgoing.destroy();
      upstream.socket.destroy();
      recorder.finish({
        ...fields,
        bytes_out: bytesOut,
        bytes_in: bytesIn,
        detail: 'client closed the connection',
      });
    }
  };
  response.on('close', abandon);
  outgoing.on('error', (error) => {
    upstream.socket.destroy();
    refuseResponse(
      response,
      recorder,
      target,
      {
        status: 502,
        rule: 'upstream-failed',
        detail: `${withoutBrackets(host)}:${port} failed: ${(error as { code?: string }).code ?? error.message}`,
      },
      { ...fields, bytes_out: bytesOut, bytes_in: bytesIn },
    );
  });
  outgoing.on('response', (answer) => {
    const answerHeaders = forwardHeaders(answer.headers);
    response.writeHead(answer.statusCode ?? 502, answer.statusMessage, answerHeaders);
    answer.on('data', (chunk: Buffer) => (bytesIn += chunk.length));
    answer.pipe(response);
    answer.on('end', () =>
      recorder.finish({
        ...fields,
        status: answer.statusCode,
        bytes_out: bytesOut,
        bytes_in: bytesIn,
      }),
    );
    answer.on('error', () => response.destroy());
  });
  request.on('data', (chunk: Buffer) => (bytesOut += chunk.length));
  request.pipe(outgoing);
}
