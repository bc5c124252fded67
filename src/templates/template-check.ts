import { SystemError, UserError } from '../errors/index.js';
import { newControllerId, newEnvironmentId } from '../ids.js';
import type { Logger } from '../record/logger.js';
import type { ContainerRuntime } from '../sandbox/container-runtime.js';
import type { ImageSummary } from '../sandbox/image-store.js';
import { PROTOCOL_VERSION } from '../sandbox/protocol/index.js';
import { Sandbox } from '../sandbox/sandbox.js';
import { STARTUP_PROBE, startupProblems } from './template-startup-check.js';

/**
 * The protocol the controller speaks with the sandbox agent (docs/agent-protocol.md). A template
 * whose agent answers another version was built on another hookbox.
 */
export const AGENT_PROTOCOL_VERSION = PROTOCOL_VERSION;

/** The entrypoint every sandbox image has: tini, then the agent (sandbox-image/Dockerfile). */
export const AGENT_ENTRYPOINT = [
  '/usr/bin/tini',
  '--',
  '/usr/bin/python3',
  '-I',
  '-B',
  '/opt/hookbox/agent/main.py',
];

const LOADER_VARIABLE = /^(LD_[A-Z_]*|PYTHONHOME|PYTHONPATH|PYTHONSTARTUP)=/;

/**
 * The image's own configuration: nothing it inherited may weaken the sandbox either (a template
 * built FROM another image). Returns the problems, one line each.
 */
export function configProblems(image: ImageSummary): string[] {
  const problems: string[] = [];
  if (image.volumes.length > 0)
    problems.push(
      `it declares VOLUME ${image.volumes.join(', ')} (writable holes in the read-only root)`,
    );
  if (image.healthcheck) problems.push('it declares a HEALTHCHECK (run as root beside the agent)');
  if (JSON.stringify(image.entrypoint) !== JSON.stringify(AGENT_ENTRYPOINT))
    problems.push(`its ENTRYPOINT is ${JSON.stringify(image.entrypoint)}, not the sandbox agent's`);
  const loader = image.env.find((pair) => LOADER_VARIABLE.test(pair));
  if (loader) problems.push(`it sets ${loader.split('=')[0]} (code loaded into the root agent)`);
  return problems;
}

// Run as the tool user in a real, hardened environment made from the candidate image.
const TOOL_PROBE = [
  'echo "uid=$(id -u) gid=$(id -g)"',
  "grep -E '^(CapPrm|CapEff|CapBnd|NoNewPrivs):' /proc/self/status | tr -d '\\t '",
  'if touch /usr/.hookbox-probe 2>/dev/null; then echo root=writable; else echo root=read-only; fi',
  'if touch /.agents/.hookbox-probe 2>/dev/null; then echo agents=writable; else echo agents=read-only; fi',
  'if ls /opt/hookbox >/dev/null 2>&1; then echo opt=readable; else echo opt=closed; fi',
  "find / -xdev -type f -perm /6000 2>/dev/null | head -n 5 | sed 's/^/setid=/'",
].join('\n');

/**
 * The hardening self-check of a built template (docs/templates.md, "How a template is checked"):
 * an environment is made from it exactly as for real (read-only root, no capabilities for tool
 * code, no network), and it must hold: the agent answers and speaks {@link AGENT_PROTOCOL_VERSION};
 * tool code runs as 1000:1000 with no capabilities and no-new-privileges, cannot write the root or
 * `/.agents`, cannot read `/opt/hookbox`, finds no setuid or setgid file, and nothing that would load
 * files tool code writes into a hook or the agent (template-startup-check.ts); a hook runs as
 * 1001:1001.
 * Returns the problems found (empty: the template may be used).
 */
export async function selfCheck(
  client: ContainerRuntime,
  logger: Logger,
  image: string,
): Promise<string[]> {
  let sandbox: Sandbox;
  try {
    // The agent's protocol version is checked on connect (docs/agent-protocol.md, Versions).
    sandbox = await Sandbox.create({
      client,
      logger,
      controller: { id: newControllerId(), pid: process.pid },
      environmentId: newEnvironmentId(),
      image,
      sources: [],
    });
  } catch (error) {
    if (error instanceof SystemError && error.code === 'sandbox_agent_incompatible')
      return [
        `its sandbox agent speaks protocol ${String(error.details.agent_protocol)}, this hookbox ${AGENT_PROTOCOL_VERSION}`,
      ];
    throw new UserError(
      'invalid_template',
      `the template's sandbox agent did not start: ${(error as Error).message}`,
      { details: { field: 'image' }, cause: error },
    );
  }
  const problems: string[] = [];
  try {
    const limits = { timeout_ms: 30_000, output_cap_bytes: 65_536 };
    const tool = await sandbox.request(
      'run_code',
      { code: TOOL_PROBE, language: 'bash', ...limits },
      40_000,
    );
    const facts = new Map<string, string>();
    for (const line of tool.stdout.split('\n')) {
      for (const pair of line.split(' ')) {
        const match = /^([A-Za-z]+)[=:](.*)$/.exec(pair);
        if (match && match[1] !== 'setid') facts.set(match[1]!, match[2]!);
      }
      if (line.startsWith('setid=')) problems.push(`${line.slice(6)} is setuid or setgid`);
    }
    const expect = (key: string, wanted: string, what: string) => {
      if (facts.get(key) !== wanted)
        problems.push(`${what} (${key}: ${facts.get(key) ?? 'not found'}, wanted ${wanted})`);
    };
    expect('uid', '1000', 'tool code does not run as the tool user');
    expect('gid', '1000', 'tool code does not run in the tool group');
    expect('CapPrm', '0000000000000000', 'tool code holds capabilities');
    expect('CapEff', '0000000000000000', 'tool code holds capabilities');
    expect('NoNewPrivs', '1', 'tool code can gain privileges');
    expect('root', 'read-only', 'tool code can write the root file system');
    expect('agents', 'read-only', 'tool code can write /.agents');
    expect('opt', 'closed', 'tool code can read the agent in /opt/hookbox');
    if (tool.exit_code !== 0 && facts.size === 0)
      problems.push(
        `the probe as tool user failed (exit ${tool.exit_code}): ${tool.stderr.trim()}`,
      );
    // Nothing that would load tool code's files into hooks or the agent (template-startup-check.ts).
    const startup = await sandbox.request(
      'run_code',
      { code: STARTUP_PROBE, language: 'bash', ...limits },
      40_000,
    );
    problems.push(...startupProblems(startup.stdout));
    const hook = await sandbox.request(
      'run_hook',
      { command: 'echo "$(id -u):$(id -g)"', stdin: '', ...limits },
      40_000,
    );
    if (hook.stdout.trim() !== '1001:1001')
      problems.push(
        `hooks do not run as the hook user (${hook.stdout.trim() || hook.stderr.trim()})`,
      );
  } finally {
    await sandbox.destroy().catch(() => {});
  }
  return problems;
}
