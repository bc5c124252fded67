import { chmodSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Logger } from '../record/logger.js';
import type { AddressPolicyExtras } from './addresses.js';
import type { Allowlist } from './allowlist.js';
import { forwardRequest, withAccessToken } from './egress-forward.js';
import type { EgressRecord } from '../record/egress-record.js';
import { Recorder } from './egress-recorder.js';
import { refuseResponse, refuseSocket, type Refusal } from './egress-refusal.js';
import { openUpstream, upstreamFailureRule, type Upstream } from './egress-upstream.js';
import {
  HOOK_TOKEN_HEADER,
  parseAuthority,
  tokenMatches,
  vetTarget,
  withoutBrackets,
  type EgressTesting,
  type Resolver,
  type Vetted,
} from './egress-vetting.js';

export { RULE_HEADER } from './egress-refusal.js';
export { HOOK_TOKEN_HEADER, type EgressTesting, type Resolver } from './egress-vetting.js';

export interface EgressProxyOptions {
  environmentId: string;
  allowlist: Allowlist;
  /**
   * The per-environment secret that marks a request as an `http` hook's (header
   * `x-hookbox-hook-token`). Only hook requests get `transform` headers; the sandbox agent holds it
   * in memory, tool code never sees it.
   */
  hookToken: string;
  resolve?: Resolver;
  /** PEM certificates trusted for upstream TLS beside the system's (hook requests). */
  caCerts?: string[];
  /** Host addresses and extra networks (the Docker engine's) to refuse. */
  addressPolicy?: AddressPolicyExtras;
  testing?: EgressTesting;
  /** @default 10000 */
  connectTimeoutMs?: number;
  /** A tunnel or request with no traffic this long is closed. @default 300000 */
  idleTimeoutMs?: number;
  /** @default 256 */
  maxConnections?: number;
  logger?: Logger;
  onRecord?: (record: EgressRecord) => void;
}

/** {@link EgressProxyOptions.idleTimeoutMs} unless set. */
const DEFAULT_IDLE_TIMEOUT_MS = 300_000;

/**
 * One environment's egress proxy: an HTTP forward proxy that lets through only what the
 * environment's allowlist names (docs/contract.md §7). It takes
 *
 * - `CONNECT host:port` — a TCP tunnel (HTTPS from tool code); nothing is added to it;
 * - `GET http://host/…` (absolute form) — plain HTTP, forwarded as is, never with `transform`
 *   headers; only credential placeholders bound to the matching entry are swapped for their value
 *   (docs/credentials.md, "Placeholders in environment variables");
 * - `POST https://host/…` (absolute form, with the environment's hook token) — an `http` hook: the
 *   proxy makes the TLS connection itself, verifies the upstream's certificate and adds the
 *   `transform` headers of the matching allowlist entry, so the secret never enters the sandbox.
 *
 * For each target it checks the allowlist (raw IP targets only when an entry names the address),
 * resolves the name itself, refuses loopback, private, link-local, metadata, reserved, the host's
 * own and the Docker engine's addresses, and connects to the vetted address (no second lookup, so
 * DNS rebinding cannot redirect it). Refusals are HTTP 403 (400 for malformed requests, 502 for
 * upstream failures) whose reason phrase and body name the rule. Every connection is recorded.
 */
export class EgressProxy {
  private readonly server: Server;
  private readonly sockets = new Set<Duplex>();
  private allowlist: Allowlist;
  private listening: string | undefined;
  private socketPath: string | undefined;

  private constructor(private readonly options: EgressProxyOptions) {
    this.allowlist = options.allowlist;
    this.server = createServer({ requireHostHeader: false });
    this.server.maxConnections = options.maxConnections ?? 256;
    this.server.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    this.server.on('request', (request: IncomingMessage, response: ServerResponse) => {
      void this.onRequest(request, response).catch((error: unknown) => {
        this.options.logger?.error({ error: (error as Error).message }, 'egress proxy failure');
        response.destroy();
      });
    });
    this.server.on('connect', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
      void this.onConnect(request, socket, head).catch((error: unknown) => {
        this.options.logger?.error({ error: (error as Error).message }, 'egress proxy failure');
        socket.destroy();
      });
    });
    this.server.on('upgrade', (request: IncomingMessage, socket: Duplex) => {
      const recorder = this.recorder('invalid', request.method ?? '?', request.url ?? '?');
      refuseSocket(socket, recorder, request.url ?? '?', {
        status: 400,
        rule: 'bad-request',
        detail: 'protocol upgrades are not forwarded; use CONNECT',
      });
    });
    this.server.on('clientError', (error: Error, socket: Duplex) => {
      const recorder = this.recorder('invalid', '?', '?');
      refuseSocket(socket, recorder, 'request', {
        status: 400,
        rule: 'bad-request',
        detail: `malformed request (${error.message})`,
      });
    });
  }

  /** Starts a proxy listening on a Unix socket (`{path}`, made 0666: its folder guards it) or TCP. */
  static async listen(
    options: EgressProxyOptions,
    at: { path: string } | { host?: string; port?: number },
  ): Promise<EgressProxy> {
    const proxy = new EgressProxy(options);
    await new Promise<void>((resolve, reject) => {
      proxy.server.once('error', reject);
      if ('path' in at) {
        rmSync(at.path, { force: true });
        proxy.server.listen(at.path, () => resolve());
      } else {
        proxy.server.listen(at.port ?? 0, at.host ?? '127.0.0.1', () => resolve());
      }
    });
    if ('path' in at) {
      chmodSync(at.path, 0o666);
      proxy.socketPath = at.path;
      proxy.listening = at.path;
    } else {
      const address = proxy.server.address();
      proxy.listening =
        typeof address === 'object' && address
          ? `${address.address.includes(':') ? `[${address.address}]` : address.address}:${address.port}`
          : String(address);
    }
    return proxy;
  }

  /** `host:port`, or the socket path. */
  get address(): string {
    return this.listening ?? '';
  }

  /** TCP port when listening on TCP (tests). */
  get port(): number {
    const address = this.server.address();
    return typeof address === 'object' && address ? address.port : 0;
  }

  get environmentId(): string {
    return this.options.environmentId;
  }

  /** Swaps the allowlist; connections already open keep going. */
  setAllowlist(allowlist: Allowlist): void {
    this.allowlist = allowlist;
  }

  /** Stops listening and cuts every open connection. */
  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    if (this.socketPath) rmSync(this.socketPath, { force: true });
  }

  private recorder(form: EgressRecord['form'], method: string, target: string): Recorder {
    return new Recorder(
      (record) => {
        if (record.decision === 'refused') this.options.logger?.warn(record, 'egress refused');
        else this.options.logger?.info(record, 'egress');
        this.options.onRecord?.(record);
      },
      { environment_id: this.options.environmentId, form, method, target: recordedTarget(target) },
    );
  }

  private vet(rawHost: string): Promise<Vetted | Refusal> {
    return vetTarget(rawHost, this.allowlist, this.options);
  }

  private async onConnect(request: IncomingMessage, client: Duplex, head: Buffer): Promise<void> {
    const authority = request.url ?? '';
    const recorder = this.recorder('connect', 'CONNECT', authority);
    client.on('error', () => {});
    const parsed = parseAuthority(authority);
    if (!parsed) {
      refuseSocket(client, recorder, authority, {
        status: 400,
        rule: 'bad-target',
        detail: 'CONNECT needs host:port',
      });
      return;
    }
    const target = `${parsed.host}:${parsed.port}`;
    recorder.record.target = target;
    const vetted = await this.vet(parsed.host);
    if (!('entry' in vetted)) {
      refuseSocket(client, recorder, target, vetted);
      return;
    }
    let upstream: Upstream;
    try {
      upstream = await openUpstream(vetted, parsed.port, false, this.options);
    } catch (error) {
      const code = (error as { code?: string }).code;
      refuseSocket(client, recorder, target, {
        status: 502,
        rule: upstreamFailureRule(code, false),
        detail: `could not connect to ${target} (${vetted.addresses.join(', ')}): ${code ?? (error as Error).message}`,
      });
      return;
    }
    const { socket } = upstream;
    if (client.destroyed) {
      socket.destroy();
      recorder.finish({
        rule: vetted.entry.domain,
        upstream: upstream.address,
        detail: 'client left',
      });
      return;
    }
    this.sockets.add(socket);
    const idle = this.options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
    socket.setTimeout(idle, () => socket.destroy());
    let bytesOut = head.length;
    let bytesIn = 0;
    const end = () => {
      socket.destroy();
      client.destroy();
      this.sockets.delete(socket);
      recorder.finish({
        rule: vetted.entry.domain,
        upstream: `${upstream.address}:${parsed.port}`,
        status: 200,
        bytes_out: bytesOut,
        bytes_in: bytesIn,
      });
    };
    socket.on('error', end);
    socket.on('close', end);
    client.on('close', end);
    client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    if (head.length > 0) socket.write(head);
    socket.on('data', (chunk: Buffer) => (bytesIn += chunk.length));
    client.on('data', (chunk: Buffer) => (bytesOut += chunk.length));
    socket.pipe(client);
    client.pipe(socket);
  }

  private async onRequest(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const raw = request.url ?? '';
    const method = request.method ?? 'GET';
    let url: URL | undefined;
    try {
      url = /^https?:\/\//i.test(raw) ? new URL(raw) : undefined;
    } catch {
      url = undefined;
    }
    const hook = url?.protocol === 'https:';
    const recorder = this.recorder(
      hook ? 'hook' : url ? 'http' : 'invalid',
      method,
      raw.slice(0, 200),
    );
    if (!url) {
      refuseResponse(response, recorder, raw.slice(0, 200) || 'request', {
        status: 400,
        rule: 'not-a-proxy-request',
        detail:
          'this is hookbox\'s egress proxy: send absolute-form requests ("GET http://host/path") or CONNECT host:port',
      });
      return;
    }
    const port = Number(url.port || (hook ? 443 : 80));
    const host = url.hostname;
    const target = `${withoutBrackets(host)}:${port}${url.pathname}`;
    recorder.record.target = target;
    if (hook && !tokenMatches(request.headers[HOOK_TOKEN_HEADER], this.options.hookToken)) {
      refuseResponse(response, recorder, target, {
        status: 403,
        rule: 'hook-form',
        detail:
          "https:// targets in absolute form are only for the sandbox agent's http hooks; use CONNECT for HTTPS",
      });
      return;
    }
    const vetted = await this.vet(host);
    if (!('entry' in vetted)) {
      refuseResponse(response, recorder, target, vetted);
      return;
    }
    let upstream: Upstream;
    try {
      upstream = await openUpstream(vetted, port, hook, this.options);
    } catch (error) {
      const code = (error as { code?: string }).code;
      refuseResponse(response, recorder, target, {
        status: 502,
        rule: upstreamFailureRule(code, hook),
        detail: `could not connect to ${withoutBrackets(host)}:${port} (${vetted.addresses.join(', ')}): ${code ? `${code}: ` : ''}${(error as Error).message}`,
      });
      return;
    }
    if (response.destroyed) {
      upstream.socket.destroy();
      recorder.finish({ rule: vetted.entry.domain, detail: 'client closed the connection' });
      return;
    }
    this.sockets.add(upstream.socket);
    upstream.socket.on('close', () => this.sockets.delete(upstream.socket));
    let entry = vetted.entry;
    try {
      entry = await withAccessToken(entry);
    } catch (error) {
      upstream.socket.destroy();
      refuseResponse(response, recorder, target, {
        status: 502,
        rule: 'credential-failed',
        detail: `oauth2 credential ${entry.credential}: ${(error as Error).message}`,
      });
      return;
    }
    forwardRequest(
      request,
      response,
      recorder,
      { ...vetted, entry },
      upstream,
      { url, method, port, hook, target },
      this.options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS,
    );
  }
}

/**
 * A target as records keep it: without a query or fragment (a secret in a query string must not
 * reach the audit log or pino, docs/network.md) and at most 200 characters.
 */
export function recordedTarget(target: string): string {
  return target.replace(/[?#][\s\S]*$/, '').slice(0, 200);
}
