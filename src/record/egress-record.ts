/**
 * One connection or request through an environment's egress proxy, as the controller records it
 * (audit log entry `kind: "egress"`, and pino). Header values are never recorded: `injected_headers`
 * holds names only.
 */
export interface EgressRecord {
  environment_id: string;
  /** `connect`: a CONNECT tunnel; `http`: a plain-HTTP request in absolute form; `hook`: an `http` hook's request, which the proxy sends over TLS itself. */
  form: 'connect' | 'http' | 'hook' | 'invalid';
  method: string;
  /** `host:port`, and for `http`/`hook` the path without its query. */
  target: string;
  /** `failed`: allowed, but the name did not resolve or the upstream could not be reached (502). */
  decision: 'allowed' | 'refused' | 'failed';
  /**
   * For a refusal, the rule that refused (`allowlist`, `raw-ip`, `loopback`, `private`, …, see
   * docs/network.md); for a failure, what failed (`dns`, `upstream-unreachable`, `upstream-tls`,
   * `upstream-failed`); for an allowed one, the allowlist entry's domain.
   */
  rule: string;
  /** Why, in words, for refusals and failures. */
  detail?: string;
  /** The address the proxy connected to (after resolution and vetting). */
  upstream?: string;
  /** The HTTP status given to the client (200 for an established tunnel). */
  status?: number;
  /** Names of the transform headers added (hook requests only). */
  injected_headers?: string[];
  /** Names of the headers whose credential placeholders were swapped (docs/credentials.md). */
  placeholder_headers?: string[];
  bytes_out: number;
  bytes_in: number;
  duration_ms: number;
}
