// The egress proxy's upstream connection: to the first vetted address that answers, TLS for hooks.
import { readFileSync } from 'node:fs';
import { connect as netConnect, isIP, type Socket } from 'node:net';
import {
  checkServerIdentity,
  connect as tlsConnect,
  createSecureContext,
  rootCertificates,
  type SecureContext,
} from 'node:tls';
import type { Vetted } from './egress-vetting.js';

/** What the upstream connection reads from the proxy's options. */
export interface UpstreamOptions {
  /** PEM certificates trusted for upstream TLS beside the system's (hook requests). */
  caCerts?: string[];
  /** @default 10000 */
  connectTimeoutMs?: number;
}

/** An open connection to a vetted upstream, and the address it went to. */
export interface Upstream {
  socket: Socket;
  address: string;
}

/**
 * The code of an upstream that did not answer in time (connect or TLS handshake): a network failure
 * of that address, so the next address is tried (docs/network.md, Egress proxy).
 */
export const CONNECT_TIMEOUT_CODE = 'ECONNECT_TIMEOUT';

/** Whether an error code is a TLS failure (a certificate, a handshake), not a network one. */
export function isTlsFailure(code: string | undefined): boolean {
  return (
    code !== undefined &&
    code !== '' &&
    (code.startsWith('ERR_TLS') || code.startsWith('ERR_SSL') || !code.startsWith('E'))
  );
}

/** The record rule of a failed upstream connection: timed out, a TLS failure (`secure` only), or unreachable. */
export function upstreamFailureRule(code: string | undefined, secure: boolean): string {
  return code === CONNECT_TIMEOUT_CODE
    ? 'upstream-timeout'
    : secure && isTlsFailure(code)
      ? 'upstream-tls'
      : 'upstream-unreachable';
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

/** The trusted CAs for hook upstreams, parsed once (per connection it would cost ~20 ms). */
function upstreamContext(caCerts: string[] | undefined): SecureContext {
  const extra = caCerts ?? [];
  const key = extra.join('\n');
  let context = secureContexts.get(key);
  if (!context) {
    context = createSecureContext({ ca: [...systemCas(), ...extra] });
    secureContexts.set(key, context);
  }
  return context;
}

/** Connects to the first vetted address that answers (TLS, checked against `vetted.host`, when `secure`). */
export async function openUpstream(
  vetted: Vetted,
  port: number,
  secure: boolean,
  options: UpstreamOptions,
): Promise<Upstream> {
  const timeoutMs = options.connectTimeoutMs ?? 10_000;
  let lastError: Error | undefined;
  for (const address of vetted.addresses) {
    try {
      const socket = await new Promise<Socket>((resolve, reject) => {
        const socket = secure
          ? tlsConnect({
              host: address,
              port,
              ...(isIP(vetted.host) ? {} : { servername: vetted.host }),
              secureContext: upstreamContext(options.caCerts),
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
        socket.once('error', (error: Error) => {
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
