// Shared by the mcp-*.test.ts files: the gate the MCP tests run behind, and the SDK's own Client.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CallToolResultSchema,
  ElicitRequestSchema,
  type ElicitRequest,
  type ElicitResult,
} from '@modelcontextprotocol/sdk/types.js';

/** Denies code with "forbidden" in it, asks about "please-ask", allows the rest. */
const GATE = `import json, sys
args = json.dumps(json.load(sys.stdin)["tool_call"]["args"])
if "forbidden" in args:
    print(json.dumps({"decision": "deny", "reason": "the mcp test gate blocks forbidden words"}))
elif "please-ask" in args:
    print(json.dumps({"decision": "ask", "reason": "a human must look at this one"}))
else:
    print(json.dumps({"decision": "allow"}))
`;

/** The sources of the MCP tests' environments: the gate, and one workspace file. */
export const MCP_SOURCES: Record<string, string> = {
  '.agents/hooks.json': JSON.stringify({
    'mcp-gate': {
      pre_tool_execution: [
        {
          matcher: 'code_execution',
          hooks: [{ type: 'command', command: 'python3 /.agents/hooks-scripts/gate.py' }],
        },
      ],
    },
  }),
  '.agents/hooks-scripts/gate.py': GATE,
  'workspace/notes/readme.txt': 'notes for the mcp test\n',
};

/** The same sources as an inline array (the HTTP route's header, an interaction's body). */
export const MCP_INLINE_SOURCES = Object.entries(MCP_SOURCES).map(([target, content]) => ({
  type: 'inline' as const,
  target,
  content,
}));

/** What the client was asked through elicitation, and how it answers next. */
export interface Elicitations {
  asked: ElicitRequest['params'][];
  answer: ElicitResult;
}

/** A connected SDK client; with `elicitations`, it declares elicitation and answers from it. */
export async function connectClient(
  transport: Transport,
  elicitations?: Elicitations,
): Promise<Client> {
  const client = new Client(
    { name: 'hookbox-test-client', version: '1.0.0' },
    { capabilities: elicitations ? { elicitation: { form: {} } } : {} },
  );
  if (elicitations)
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      elicitations.asked.push(request.params);
      return elicitations.answer;
    });
  await client.connect(transport);
  return client;
}

/** The text of a tool result. */
export function textOf(result: unknown): string {
  return CallToolResultSchema.parse(result)
    .content.map((item) => (item.type === 'text' ? item.text : ''))
    .join('');
}

/** The environment a result came from. */
export function environmentOf(result: unknown): string {
  return String(CallToolResultSchema.parse(result)._meta?.['hookbox.dev/environment_id']);
}
