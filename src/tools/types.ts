/** A call of one of the sandbox's built-in tools, exactly as the caller sent it. */
export interface ToolCall {
  name: string;
  args: Record<string, unknown>;
}

/** What a tool gives back: the tool's own result object (for example `{exit_code, stdout, ...}`). */
export type ToolResult = Record<string, unknown>;
