/** One environment's tools and files over MCP, with the official SDK's Server (docs/mcp.md). */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import type { Environment } from '../controller/environment.js';
import { SerialQueue } from '../controller/serial-queue.js';
import { toHookboxError, UserError } from '../errors/index.js';
import { DEFAULT_APPROVAL_TTL_MS } from '../interactions/approval-flow.js';
import { resolveToolCall, type VocabularyId } from '../tools/registry.js';
import { ApiApprover } from './api-approver.js';
import { ElicitationApprover } from './elicitation-approver.js';
import { progressOf, type RequestExtra } from './progress.js';
import { listWorkspaceResources, readWorkspaceResource } from './resources.js';
import { callToolResultOf, mcpToolsOf } from './tools.js';
import type { WaitingApprovals } from './waiting-approvals.js';

/** What an MCP session serves. */
export interface McpSessionOptions {
  /** The tools offered: the environment's vocabulary (docs/vocabularies.md). */
  vocabulary: VocabularyId;
  /** The environment, made on first need (a call, a resource) and then the same one. */
  environment(): Promise<Environment>;
  /** Who decides an `ask` answered in the client, before "via MCP client NAME". */
  decider: string;
  /**
   * Where a call waits for the approvals API when the client cannot show a question (no
   * elicitation capability). Without it (stdio: no API) an `ask` blocks: "approval required: …".
   * @default none
   */
  waitingApprovals?: WaitingApprovals;
  /** hookbox's version, told to the client. */
  version: string;
  /** Who acts, when not the owner (an admin on a tenant's environment). @default the owner */
  actor?: string;
  /** Approval wait, in milliseconds (elicitation and the API alike). @default DEFAULT_APPROVAL_TTL_MS */
  approvalTimeoutMs?: number;
}

/** A user mistake as an MCP error the client can show: invalid params, the message naming the field. */
function mcpErrorOf(error: unknown): McpError {
  if (error instanceof McpError) return error;
  const failure = toHookboxError(error);
  const code = failure instanceof UserError ? ErrorCode.InvalidParams : ErrorCode.InternalError;
  return new McpError(code, failure.message, {
    code: failure.code,
    retryable: failure.retryable,
    ...(failure.details.field === undefined ? {} : { field: failure.details.field }),
  });
}

/**
 * The MCP server of one session: `tools/list` is the vocabulary, `tools/call` goes through the
 * environment's gates exactly as an interaction's call does (Environment.call), and the
 * workspace's files are resources.
 */
export function mcpServerFor(options: McpSessionOptions): Server {
  const server = new Server(
    { name: 'hookbox', version: options.version },
    {
      capabilities: { tools: {}, resources: {} },
      instructions:
        'Tools run in a hookbox sandbox: a container whose /workspace is writable. Every call ' +
        'meets the user’s gates first; a blocked call says why — adapt instead of retrying it.',
    },
  );

  // A session's calls run one after another, so a cancelled call that still waits its turn is
  // dropped without running, and its kill can only reach its own tool (docs/mcp.md).
  const calls = new SerialQueue();

  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: mcpToolsOf(options.vocabulary),
  }));

  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const call = { name: request.params.name, args: request.params.arguments ?? {} };
    try {
      // Unknown tools and arguments that fail the schema are refused before anything runs.
      resolveToolCall(call, options.vocabulary);
      const environment = await options.environment();
      return await calls.run(async () => {
        if (extra.signal.aborted)
          throw new McpError(ErrorCode.RequestTimeout, 'cancelled before it ran');
        return callThroughGates(server, options, environment, call, extra);
      });
    } catch (error) {
      throw mcpErrorOf(error);
    }
  });

  server.setRequestHandler(ListResourcesRequestSchema, async () => {
    try {
      return { resources: await listWorkspaceResources(await options.environment()) };
    } catch (error) {
      throw mcpErrorOf(error);
    }
  });

  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    try {
      return await readWorkspaceResource(await options.environment(), request.params.uri);
    } catch (error) {
      throw mcpErrorOf(error);
    }
  });

  return server;
}

async function callThroughGates(
  server: Server,
  options: McpSessionOptions,
  environment: Environment,
  call: { name: string; args: Record<string, unknown> },
  extra: RequestExtra,
): Promise<CallToolResult> {
  const clientName = server.getClientVersion()?.name ?? 'unnamed';
  const progress = progressOf(extra);
  const record = (
    answer: Omit<Parameters<typeof environment.recordApproval>[0], 'interaction_id'>,
  ) => environment.recordApproval({ ...answer, interaction_id: null });
  const approver = server.getClientCapabilities()?.elicitation
    ? new ElicitationApprover(server, {
        decidedBy: `${options.decider} via MCP client ${clientName}`,
        record,
        relatedRequestId: extra.requestId,
        signal: extra.signal,
        ...(options.approvalTimeoutMs === undefined
          ? {}
          : { timeoutMs: options.approvalTimeoutMs }),
      })
    : options.waitingApprovals &&
      new ApiApprover(options.waitingApprovals, {
        ttlMs: options.approvalTimeoutMs ?? DEFAULT_APPROVAL_TTL_MS,
        mcpClient: clientName,
        signal: extra.signal,
        note: progress.note,
        record,
      });
  const outcome = await environment.call(call, {
    ...(approver ? { approver } : {}),
    ...(options.actor === undefined ? {} : { actor: options.actor }),
    ...progress.listeners,
    signal: extra.signal,
  });
  return callToolResultOf(outcome);
}
