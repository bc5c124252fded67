/** The MCP face of an environment's vocabulary: its tools as MCP lists them, and a call's outcome as MCP results it. */
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { CallOutcome } from '../controller/call-outcome.js';
import { reportOf } from '../interactions/steps.js';
import { toolDeclarations } from '../tools/model-declarations.js';
import type { VocabularyId } from '../tools/registry.js';

/**
 * The vocabulary's tools with their JSON Schemas as `inputSchema` (docs/mcp.md, "Tools"): the same
 * declarations a model driver sends, so an agent over MCP sees what a Gemini agent sees.
 */
export function mcpToolsOf(vocabulary: VocabularyId): Tool[] {
  return toolDeclarations(vocabulary).map((declaration) => ({
    name: declaration.name,
    description: declaration.description,
    inputSchema: { type: 'object', ...declaration.parameters },
  }));
}

/**
 * A call's outcome as the model is shown it: a blocked call is `isError` with the gate's reason as
 * its text, so the model reads why and adapts (docs/contract.md §6); a failed tool is `isError`
 * with its result. The text is the one interactions feed a model (hooks' additional context included).
 */
export function callToolResultOf(outcome: CallOutcome): CallToolResult {
  const report = reportOf(outcome);
  return {
    content: [{ type: 'text', text: report.text_for_model }],
    isError: outcome.is_error,
    _meta: {
      'hookbox.dev/environment_id': outcome.environment_id,
      'hookbox.dev/call_id': outcome.call_id,
      'hookbox.dev/blocked': outcome.blocked,
    },
  };
}
