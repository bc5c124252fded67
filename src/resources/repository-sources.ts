/**
 * Sources of type `repository` (docs/environments.md, "Repository sources"): a git URL cloned into
 * the new environment by `git` inside its sandbox, so the clone leaves through the environment's
 * egress proxy and its allowlist like any other traffic of tool code (docs/network.md). Nothing is
 * fetched by the controller itself: a host the allowlist does not name is refused before anything
 * is made, and the proxy refuses it again on the wire.
 */
import { UserError } from '../errors/index.js';
import type { Environment } from '../controller/environment.js';
import type { Allowlist } from '../network/allowlist.js';

/** A repository source as the request gave it (already shaped by environment-request.ts). */
export interface RepositorySource {
  /** Its place in the request's `sources`, for the field an error names. */
  index: number;
  url: string;
  /** Where it is cloned, relative to the environment root: `workspace/<folder>`. */
  target: string;
}

/** How long one clone may take before it is stopped and the environment removed. */
export const CLONE_TIMEOUT_MS = 120_000;
/** How much of git's output is kept, for the error that quotes it. */
const CLONE_OUTPUT_CAP_BYTES = 64 * 1024;

function refuse(field: string, rule: string): never {
  throw new UserError('invalid_sources', `${field}: ${rule}`, { details: { field } });
}

/** The folder `git clone URL` would make: the URL's last path segment without `.git`. */
function defaultFolderOf(url: URL): string | undefined {
  const last = url.pathname
    .split('/')
    .filter((part) => part !== '')
    .pop();
  const name = last?.replace(/\.git$/, '');
  return name && /^[\w.-]+$/.test(name) && name !== '.' && name !== '..' ? name : undefined;
}

/** Checks a target: a new folder under `workspace/`, not the `.agents` mirror. */
function checkTarget(target: string, field: string): string {
  const relative = target.startsWith('/') ? target.slice(1) : target;
  const segments = relative.split('/');
  if (segments.some((segment) => segment === '' || segment === '.' || segment === '..'))
    refuse(field, `${JSON.stringify(target)} must be a plain path: no empty, "." or ".." segments`);
  if (segments[0] !== 'workspace' || segments.length < 2)
    refuse(
      field,
      `${JSON.stringify(target)} must name a folder under "workspace/" (e.g. "workspace/repo")`,
    );
  if (segments[1] === '.agents')
    refuse(field, `${JSON.stringify(target)} is under the read-only mirror "workspace/.agents"`);
  return segments.join('/');
}

/**
 * Checks a request's repository sources before anything is made: each URL an `http(s)://` git URL
 * without credentials in it, its host allowlisted, each target a folder of its own that no other
 * source writes into. Returns them with their targets made explicit.
 */
export function checkRepositories(
  repositories: (Omit<RepositorySource, 'target'> & { target?: string })[],
  inlineTargets: string[],
  allowlist: Allowlist | undefined,
): RepositorySource[] {
  const checked: RepositorySource[] = [];
  for (const repository of repositories) {
    const at = `sources[${repository.index}]`;
    let url: URL;
    try {
      url = new URL(repository.url);
    } catch {
      refuse(`${at}.source`, `${JSON.stringify(repository.url)} is not a URL`);
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:')
      refuse(
        `${at}.source`,
        `must be an http:// or https:// git URL (a clone leaves through the egress proxy, which speaks HTTP)`,
      );
    if (url.username !== '' || url.password !== '')
      refuse(
        `${at}.source`,
        'must not carry credentials; bind them to the host with network.allowlist[].credential (docs/credentials.md)',
      );
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (!allowlist?.match(host))
      refuse(
        `${at}.source`,
        `host ${JSON.stringify(host)} is not in the environment's network allowlist; a repository is cloned through it (add {"domain": ${JSON.stringify(host)}} to network.allowlist)`,
      );
    const folder = defaultFolderOf(url);
    if (repository.target === undefined && folder === undefined)
      refuse(`${at}.target`, 'is needed: the URL names no folder to clone into');
    const target = checkTarget(repository.target ?? `workspace/${folder}`, `${at}.target`);
    const clash = [...inlineTargets, ...checked.map((other) => other.target)].find(
      (other) =>
        other === target || other.startsWith(`${target}/`) || target.startsWith(`${other}/`),
    );
    if (clash !== undefined)
      refuse(
        `${at}.target`,
        `${JSON.stringify(target)} overlaps ${JSON.stringify(clash)}, another source's; a repository gets a folder of its own`,
      );
    checked.push({ ...repository, url: url.href, target });
  }
  return checked;
}

/** The last lines of git's complaint, without its progress noise. */
function gitComplaint(stderr: string): string {
  const lines = stderr
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('Cloning into'));
  return lines.slice(-3).join('; ') || 'git failed without a message';
}

/**
 * Clones each repository into its target, as the tool user, through the environment's proxy. A
 * failed clone is the caller's (a URL that is no repository, a host that refuses): a 400 naming
 * the source; the caller removes the half-made environment.
 */
export async function cloneRepositories(
  environment: Environment,
  repositories: RepositorySource[],
): Promise<void> {
  for (const repository of repositories) {
    const answer = await environment.sandbox.request(
      'run_code',
      {
        // The URL and folder travel as variables, never spliced into the script.
        code: 'git clone --quiet -- "$HOOKBOX_CLONE_URL" "/$HOOKBOX_CLONE_TARGET"',
        language: 'bash',
        timeout_ms: CLONE_TIMEOUT_MS,
        output_cap_bytes: CLONE_OUTPUT_CAP_BYTES,
        env: {
          HOOKBOX_CLONE_URL: repository.url,
          HOOKBOX_CLONE_TARGET: repository.target,
          // Never wait for a password prompt: there is no one to answer it.
          GIT_TERMINAL_PROMPT: '0',
        },
      },
      CLONE_TIMEOUT_MS + 10_000,
    );
    if (answer.timed_out)
      refuse(
        `sources[${repository.index}].source`,
        `cloning ${repository.url} took longer than ${CLONE_TIMEOUT_MS / 1000} s`,
      );
    if (answer.exit_code !== 0)
      refuse(
        `sources[${repository.index}].source`,
        `git could not clone ${repository.url}: ${gitComplaint(answer.stderr)}`,
      );
  }
}
