// The controller's faster way to a sandbox agent: a Unix socket the agent listens on, beside the
// container's attached stdio (docs/agent-protocol.md, "The stream").
import { connect } from 'node:net';
import { PassThrough } from 'node:stream';
import type { Logger } from '../record/logger.js';
import { AgentConnection } from './agent-connection.js';
import type { AttachedStdio, ContainerRuntime } from './container-runtime.js';

/** How long connecting to the channel and the check on it may take; past it, the stdio serves. */
const CHANNEL_TIMEOUT_MS = 2_000;

/** The connections to a container's agent: the one requests use, and the stdio kept beside it. */
export interface AgentLinks {
  agent: AgentConnection;
  /** The attached stdio, when requests go over the channel socket instead. */
  attached?: AgentConnection;
}

/**
 * Requests go over the agent's channel socket where one answers as the same agent (`instance`) as
 * `stdio`, else over `stdio` itself.
 */
export async function reachAgent(
  client: ContainerRuntime,
  logger: Logger,
  containerId: string,
  stdio: AgentConnection,
  instance: string | undefined,
): Promise<AgentLinks> {
  const channel = await openAgentChannel(client, logger, containerId, instance);
  return channel ? { agent: channel, attached: stdio } : { agent: stdio };
}

/**
 * Opens the channel to the agent that answered `instance` on the container's stdio. Undefined when
 * the engine offers no path to it, the socket cannot be reached (a controller on another host or
 * without the rights, gVisor) or the agent there is another one. Never throws: the stdio is always
 * there to fall back on.
 */
export async function openAgentChannel(
  client: ContainerRuntime,
  logger: Logger,
  containerId: string,
  instance: string | undefined,
): Promise<AgentConnection | undefined> {
  if (!client.agentChannelPath || instance === undefined) return undefined;
  let stdio: AttachedStdio | undefined;
  try {
    const path = await client.agentChannelPath(containerId);
    if (path === undefined) return undefined;
    stdio = await socketStdio(path);
    const agent = new AgentConnection(stdio, logger, containerId);
    const answer = await agent.handshake(CHANNEL_TIMEOUT_MS);
    // A pid of the host reused by another container would lead to its agent: only the one that
    // answered on this container's own stdio will do.
    if (answer.instance !== instance) {
      agent.close();
      logger.warn({ containerId, path }, 'another sandbox agent answered on the channel; not used');
      return undefined;
    }
    logger.debug({ containerId, path }, 'sandbox agent reached on its channel socket');
    return agent;
  } catch (error) {
    stdio?.close();
    logger.debug(
      { containerId, error: (error as Error).message },
      'no channel socket to the sandbox agent; its stdio serves',
    );
    return undefined;
  }
}

function socketStdio(path: string): Promise<AttachedStdio> {
  return new Promise((resolve, reject) => {
    const socket = connect(path);
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`connecting to ${path} timed out`));
    }, CHANNEL_TIMEOUT_MS);
    socket.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.removeAllListeners('error');
      // A broken socket closes, and the connection reads that as a lost agent.
      socket.on('error', () => {});
      const stderr = new PassThrough();
      stderr.end();
      resolve({ stdin: socket, stdout: socket, stderr, close: () => socket.destroy() });
    });
  });
}
