import { UserError } from '../errors/index.js';
import { CREDENTIAL_ID_PATTERN } from '../ids.js';
import type { AgentRequestOf } from '../sandbox/protocol/index.js';

/** Documented limits of `environment.env` (docs/environments.md, "Environment variables"). */
export const TOOL_ENV_LIMITS = {
  /** Variables per environment. */
  maxCount: 100,
  /** A name, in bytes. */
  maxNameBytes: 128,
  /** One value, in bytes (UTF-8). */
  maxValueBytes: 32 * 1024,
  /** Names and values together, in bytes. */
  maxTotalBytes: 128 * 1024,
} as const;

/**
 * Names the sandbox sets for tool code itself: the user, home, temp folder and path it runs with,
 * and the proxy settings of a networked environment (docs/network.md). Changing them would only
 * break tool code in ways that look like hookbox's fault, so they are refused.
 */
const RESERVED = new Set([
  'PATH',
  'HOME',
  'TMPDIR',
  'USER',
  'LOGNAME',
  'PWD',
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'http_proxy',
  'https_proxy',
  'NO_PROXY',
  'no_proxy',
  'ALL_PROXY',
  'all_proxy',
]);

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * One variable's value: a string, or a stored credential's placeholder (docs/credentials.md,
 * "Placeholders"): tool code sees an opaque token, which only the egress proxy swaps for the value.
 */
export type ToolEnvValue = string | { credential: string };

function refuse(field: string, rule: string): never {
  throw new UserError('invalid_argument', `${field}: ${rule}`, { details: { field } });
}

/**
 * Checks `environment.env` (name → value, for tool code only; hooks never get it): POSIX-style
 * names, none the sandbox sets itself or prefixed `HOOKBOX_`, string values without NUL or
 * credential placeholders `{"credential": "cred_…"}`, within {@link TOOL_ENV_LIMITS}. Returns a copy.
 */
export function parseToolEnv(input: unknown, field = 'env'): Record<string, ToolEnvValue> {
  if (typeof input !== 'object' || input === null || Array.isArray(input))
    refuse(field, 'must be an object of name → value strings');
  const entries = Object.entries(input as Record<string, unknown>);
  if (entries.length > TOOL_ENV_LIMITS.maxCount)
    refuse(field, `has ${entries.length} variables, more than ${TOOL_ENV_LIMITS.maxCount}`);
  let total = 0;
  const out: Record<string, ToolEnvValue> = {};
  for (const [name, value] of entries) {
    const at = `${field}.${name}`;
    if (!NAME.test(name))
      refuse(at, 'the name must be letters, digits and "_", not starting with a digit');
    if (Buffer.byteLength(name) > TOOL_ENV_LIMITS.maxNameBytes)
      refuse(at, `the name is longer than ${TOOL_ENV_LIMITS.maxNameBytes} bytes`);
    if (RESERVED.has(name) || name.startsWith('HOOKBOX_'))
      refuse(
        at,
        'is set by the sandbox itself (PATH, HOME, TMPDIR, USER, the proxy variables, HOOKBOX_*)',
      );
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
      const keys = Object.keys(value);
      const credential = (value as { credential?: unknown }).credential;
      if (keys.length !== 1 || typeof credential !== 'string')
        refuse(at, 'must be a string or {"credential": "cred_…"} (docs/credentials.md)');
      if (!CREDENTIAL_ID_PATTERN.test(credential))
        refuse(
          `${at}.credential`,
          'must be a credential id ("cred_…" or the id it was created with, docs/credentials.md)',
        );
      total += Buffer.byteLength(name);
      out[name] = { credential };
      continue;
    }
    if (typeof value !== 'string')
      refuse(at, 'must be a string or {"credential": "cred_…"} (docs/credentials.md)');
    if (value.includes('\0')) refuse(at, 'must not contain NUL');
    const bytes = Buffer.byteLength(value);
    if (bytes > TOOL_ENV_LIMITS.maxValueBytes)
      refuse(at, `is ${bytes} bytes, more than ${TOOL_ENV_LIMITS.maxValueBytes}`);
    total += bytes + Buffer.byteLength(name);
    out[name] = value;
  }
  if (total > TOOL_ENV_LIMITS.maxTotalBytes)
    refuse(field, `is ${total} bytes in all, more than ${TOOL_ENV_LIMITS.maxTotalBytes}`);
  return out;
}

/** The agent request of code a tool runs, with the environment's variables. */
export function withToolEnv(
  body: AgentRequestOf<'run_code'>,
  env: Readonly<Record<string, string>> | undefined,
): AgentRequestOf<'run_code'> {
  return env && Object.keys(env).length > 0 ? { ...body, env } : body;
}
