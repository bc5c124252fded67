import { timingSafeEqual } from 'node:crypto';
import { promises as dns } from 'node:dns';
import { chmodSync, readFileSync, rmSync } from 'node:fs';
import {
  createServer,
  request as httpRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type OutgoingHttpHeaders,
  type Server,
  type ServerResponse,
} from 'node:http';
import { connect as netConnect, isIP, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import {
  checkServerIdentity,
  connect as tlsConnect,
  createSecureContext,
  rootCertificates,
  type SecureContext,
} from 'node:tls';
import type { Logger } from '../record/logger.js';
import { refusalFor, type AddressPolicyExtras } from './addresses.js';
import { normalizeHostName, type Allowlist, type AllowlistEntry } from './allowlist.js';
import type { EgressRecord } from './egress-record.js';

/** Resolves a name to all its addresses (default: `dns.lookup` with `all: true`). */
export type Resolver = (name: string) => Promise<string[]>;

export const defaultResolver: Resolver = async (name) =>
  (await dns.lookup(name, { all: true, verbatim: true })).map((entry) => entry.address);

/**
 * Name overrides for tests. **Test configuration only**: production controllers leave it unset.
 */
export interface EgressTesting {
  /** Name → addresses, used instead of DNS. The addresses are vetted like any DNS answer. */
  hosts?: Record<string, string[]>;
  /**
   * Name → address, used instead of DNS and exempt from the address rules: the test's own servers
   * run on this machine (loopback), which the proxy otherwise refuses. Still subject to the
   * allowlist; a raw IP target is never exempt.
   */
  trustedUpstreams?: Record<string, string | string[]>;
}

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

export const HOOK_TOKEN_HEADER = 'x-hookbox-hook-token';
/** Set on every answer the proxy itself gives (refusals, failures), so a client can tell them from the upstream's. */
export const RULE_HEADER = 'x-hookbox-egress-rule';

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

interface Refusal {
  status: number;
  rule: string;
  detail: string;
}

interface Vetted {
  host: string;
  entry: AllowlistEntry;
  addresses: string[];
}

let systemCaCache: string[] | undefined;
/** TLS contexts for hook upstreams by their extra CAs, shared by every proxy that trusts the same. */
const secureContexts = new Map<string, SecureContext>();

/** The system's CA bundle (Debian's path) or, without one, Node's bundled roots. */
function systemCas(): string[] {
  if (!systemCaCache) {
    try {
      systemCaCache = [readFileSync('/etc/ssl/certs/ca-certificates.crt', 'utf8')];
    } catch {
      systemCaCache = [...rootCertificates];
    }
  }
  return systemCaCache;
}

function forwardHeaders(headers: IncomingHttpHeaders): Record<string, string | string[]> {
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

function tokenMatches(given: string | string[] | undefined, expected: string): boolean {
  if (typeof given !== 'string') return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** `host:port` of a CONNECT request; the host normalised the way a URL parser would. */
function parseAuthority(authority: string): { host: string; port: number } | undefined {
  const match = /^(\[[0-9a-fA-F:.]+\]|[^:[\]/@\s]+):(\d{1,5})$/.exec(authority);
  if (!match) return undefined;
  const port = Number(match[2]);
  if (port < 1 || port > 65535) return undefined;
  try {
    const host = new URL(`http://${match[1]}`).hostname;
    return { host, port };
  } catch {
    return undefined;
  }
}

/**
 * The code of an upstream that did not answer in time (connect or TLS handshake): a network failure
 * of that address, so the next address is tried (docs/network.md, Egress proxy).
 */
export const CONNECT_TIMEOUT_CODE = 'ECONNECT_TIMEOUT';

/** Whether an error code is a TLS failure (a certificate, a handshake), not a network one. */
function isTlsFailure(code: string | undefined): boolean {
  return (
    code !== undefined &&
    code !== '' &&
    (code.startsWith('ERR_TLS') || code.startsWith('ERR_SSL') || !code.startsWith('E'))
  );
}

function withoutBrackets(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

/** Answer text of a refusal: names the target, the rule and why. */
function refusalText(target: string, refusal: Refusal): string {
  const what = refusal.status === 502 ? 'could not reach' : 'refused';
  return `hookbox egress proxy ${what} ${target}: rule "${refusal.rule}": ${refusal.detail}\n`;
}

function reasonPhrase(refusal: Refusal): string {
  return refusal.status === 403
    ? `Forbidden by hookbox egress rule ${refusal.rule}`
    : refusal.status === 400
      ? `Bad Request (hookbox egress rule ${refusal.rule})`
      : `Bad Gateway (hookbox egress: ${refusal.rule})`;
}

class Recorder {
  private done = false;
  private readonly started = performance.now();
  readonly record: EgressRecord;

  constructor(
    private readonly emit: (record: EgressRecord) => void,
    base: Pick<EgressRecord, 'environment_id' | 'form' | 'method' | 'target'>,
  ) {
    this.record = {
      ...base,
      decision: 'allowed',
      rule: '',
      bytes_out: 0,
      bytes_in: 0,
      duration_ms: 0,
    };
  }

  finish(fields: Partial<EgressRecord> = {}): void {
    if (this.done) return;
    this.done = true;
    Object.assign(this.record, fields);
    this.record.duration_ms = Math.round((performance.now() - this.started) * 10) / 10;
    this.emit(this.record);
  }
}

/**
 * One environment's egress proxy: an HTTP forward proxy that lets through only what the
 * environment's allowlist names (docs/contract.md §7). It takes
 *
 * - `CONNECT host:port` — a TCP tunnel (HTTPS from tool code); nothing is added to it;
 * - `GET http://host/…` (absolute form) — plain HTTP, forwarded as is, never with secrets;
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
      this.refuseSocket(socket, recorder, request.url ?? '?', {
        status: 400,
        rule: 'bad-request',
        detail: 'protocol upgrades are not forwarded; use CONNECT',
      });
    });
    this.server.on('clientError', (error: Error, socket: Duplex) => {
      const recorder = this.recorder('invalid', '?', '?');
      this.refuseSocket(socket, recorder, 'request', {
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

  /** The trusted CAs for hook upstreams, parsed once (per connection it would cost ~20 ms). */
  private upstreamContext(): SecureContext {
    const extra = this.options.caCerts ?? [];
    const key = extra.join('\n');
    let context = secureContexts.get(key);
    if (!context) {
      context = createSecureContext({ ca: [...systemCas(), ...extra] });
      secureContexts.set(key, context);
    }
    return context;
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
      { environment_id: this.options.environmentId, form, method, target },
    );
  }

  /** Allowlist, resolution, address rules: the vetted addresses, or the rule that refuses. */
  private async vet(rawHost: string): Promise<Vetted | Refusal> {
    const bare = withoutBrackets(rawHost);
    if (isIP(bare)) {
      const entry = this.allowlist.match(bare);
      if (!entry)
        return {
          status: 403,
          rule: 'raw-ip',
          detail: `${bare} is an IP address; raw IP targets need an allowlist entry that names the address`,
        };
      const refusal = refusalFor(bare, this.options.addressPolicy);
      if (refusal)
        return { status: 403, rule: refusal.rule, detail: `${bare} is ${refusal.description}` };
      return { host: bare, entry, addresses: [bare] };
    }
    const host = normalizeHostName(bare);
    if (!host)
      return {
        status: 400,
        rule: 'bad-target',
        detail: `${JSON.stringify(bare)} is not a host name`,
      };
    const entry = this.allowlist.match(host);
    if (!entry)
      return {
        status: 403,
        rule: 'allowlist',
        detail: `${host} is not in this environment's network.allowlist`,
      };
    const own = <T>(map: Record<string, T> | undefined): T | undefined =>
      map && Object.hasOwn(map, host) ? map[host] : undefined;
    const trusted = own(this.options.testing?.trustedUpstreams);
    if (trusted !== undefined)
      return { host, entry, addresses: Array.isArray(trusted) ? trusted : [trusted] };
    let addresses: string[];
    try {
      addresses =
        own(this.options.testing?.hosts) ?? (await (this.options.resolve ?? defaultResolver)(host));
    } catch (error) {
      return {
        status: 502,
        rule: 'dns',
        detail: `${host} could not be resolved (${(error as { code?: string }).code ?? (error as Error).message})`,
      };
    }
    if (addresses.length === 0)
      return { status: 502, rule: 'dns', detail: `${host} has no addresses` };
    // Every answer must pass: a name that also points inside is refused outright.
    for (const address of addresses) {
      const refusal = refusalFor(address, this.options.addressPolicy);
      if (refusal)
        return {
          status: 403,
          rule: refusal.rule,
          detail: `${host} resolves to ${address}, ${refusal.description}`,
        };
    }
    return { host, entry, addresses };
  }

  /** Connects to the first vetted address that answers (TLS when `servername` is given). */
  private async openUpstream(
    vetted: Vetted,
    port: number,
    secure: boolean,
  ): Promise<{ socket: Socket; address: string }> {
    const timeoutMs = this.options.connectTimeoutMs ?? 10_000;
    let lastError: Error | undefined;
    for (const address of vetted.addresses) {
      try {
        const socket = await new Promise<Socket>((resolve, reject) => {
          const socket = secure
            ? tlsConnect({
                host: address,
                port,
                ...(isIP(vetted.host) ? {} : { servername: vetted.host }),
                secureContext: this.upstreamContext(),
                checkServerIdentity: (_name, certificate) =>
                  checkServerIdentity(vetted.host, certificate),
                ALPNProtocols: ['http/1.1'],
              })
            : netConnect({ host: address, port });
          const timer = setTimeout(() => {
            socket.destroy();
            reject(
              Object.assign(new Error(`no connection within ${timeoutMs} ms`), {
                code: CONNECT_TIMEOUT_CODE,
              }),
            );
          }, timeoutMs);
          socket.once(secure ? 'secureConnect' : 'connect', () => {
            clearTimeout(timer);
            socket.removeAllListeners('error');
            resolve(socket);
          });
          socket.once('error', (error) => {
            clearTimeout(timer);
            socket.destroy();
            reject(error);
          });
        });
        return { socket, address };
      } catch (error) {
        lastError = error as Error;
        const code = (error as { code?: string }).code ?? '';
        // A certificate problem is the upstream's, not the address's: do not try the next one.
        if (isTlsFailure(code)) throw lastError;
      }
    }
    throw lastError ?? new Error('no address');
  }

  private refuseSocket(socket: Duplex, recorder: Recorder, target: string, refusal: Refusal): void {
    const body = refusalText(target, refusal);
    if (socket.writable) {
      socket.end(
        `HTTP/1.1 ${refusal.status} ${reasonPhrase(refusal)}\r\n` +
          `Content-Type: text/plain; charset=utf-8\r\n` +
          `${RULE_HEADER}: ${refusal.rule}\r\n` +
          `Content-Length: ${Buffer.byteLength(body)}\r\n` +
          `Connection: close\r\n\r\n${body}`,
      );
    }
    socket.on('error', () => {});
    setTimeout(() => socket.destroy(), 1000).unref();
    recorder.finish({
      decision: refusal.status === 502 ? 'failed' : 'refused',
      rule: refusal.rule,
      detail: refusal.detail,
      status: refusal.status,
    });
  }

  private refuseResponse(
    response: ServerResponse,
    recorder: Recorder,
    target: string,
    refusal: Refusal,
    fields: Partial<EgressRecord> = {},
  ): void {
    const body = refusalText(target, refusal);
    if (!response.headersSent) {
      response.writeHead(refusal.status, reasonPhrase(refusal), {
        'content-type': 'text/plain; charset=utf-8',
        [RULE_HEADER]: refusal.rule,
        'content-length': Buffer.byteLength(body),
        connection: 'close',
      });
      response.end(body);
    } else {
      response.destroy();
    }
    recorder.finish({
      ...fields,
      decision: refusal.status === 502 ? 'failed' : 'refused',
      rule: refusal.rule,
      detail: refusal.detail,
      status: refusal.status,
    });
  }

  private async onConnect(request: IncomingMessage, client: Duplex, head: Buffer): Promise<void> {
    const authority = request.url ?? '';
    const recorder = this.recorder('connect', 'CONNECT', authority);
    client.on('error', () => {});
    const parsed = parseAuthority(authority);
    if (!parsed) {
      this.refuseSocket(client, recorder, authority, {
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
      this.refuseSocket(client, recorder, target, vetted);
      return;
    }
    let upstream: { socket: Socket; address: string };
    try {
      upstream = await this.openUpstream(vetted, parsed.port, false);
    } catch (error) {
      this.refuseSocket(client, recorder, target, {
        status: 502,
        rule:
          (error as { code?: string }).code === CONNECT_TIMEOUT_CODE
            ? 'upstream-timeout'
            : 'upstream-unreachable',
        detail: `could not connect to ${target} (${vetted.addresses.join(', ')}): ${(error as { code?: string }).code ?? (error as Error).message}`,
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
    const idle = this.options.idleTimeoutMs ?? 300_000;
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
      this.refuseResponse(response, recorder, raw.slice(0, 200) || 'request', {
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
      this.refuseResponse(response, recorder, target, {
        status: 403,
        rule: 'hook-form',
        detail:
          "https:// targets in absolute form are only for the sandbox agent's http hooks; use CONNECT for HTTPS",
      });
      return;
    }
    const vetted = await this.vet(host);
    if (!('entry' in vetted)) {
      this.refuseResponse(response, recorder, target, vetted);
      return;
    }
    let upstream: { socket: Socket; address: string };
    try {
      upstream = await this.openUpstream(vetted, port, hook);
    } catch (error) {
      const code = (error as { code?: string }).code;
      this.refuseResponse(response, recorder, target, {
        status: 502,
        rule:
          code === CONNECT_TIMEOUT_CODE
            ? 'upstream-timeout'
            : hook && isTlsFailure(code)
              ? 'upstream-tls'
              : 'upstream-unreachable',
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
    const headers: OutgoingHttpHeaders = forwardHeaders(request.headers);
    headers.host = url.host;
    const injected: string[] = [];
    if (hook) {
      for (const [name, value] of Object.entries(vetted.entry.transform ?? {})) {
        for (const existing of Object.keys(headers))
          if (existing.toLowerCase() === name.toLowerCase()) delete headers[existing];
        headers[name] = value;
        injected.push(name);
      }
    }
    const fields: Partial<EgressRecord> = {
      rule: vetted.entry.domain,
      upstream: `${upstream.address}:${port}`,
      ...(injected.length > 0 ? { injected_headers: injected } : {}),
    };
    const idle = this.options.idleTimeoutMs ?? 300_000;
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
    outgoing.setTimeout(idle, () => outgoing.destroy(new Error('idle timeout')));
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
      this.refuseResponse(
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
}
