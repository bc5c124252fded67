/**
 * The hook formats a group of .agents/hooks.json may speak besides the Gemini one, and the event
 * keys each takes (docs/dialects.md). A group's event keys are its agent's own names; each maps to
 * hookbox's pre or post tool event. Cursor's narrower events (`beforeShellExecution`,
 * `beforeReadFile`, `afterFileEdit`, …) fire only for the calls their agent fires them for.
 */

export const DIALECTS = [
  'claude-code',
  'antigravity-cli',
  'codex',
  'copilot',
  'cursor',
  'gemini-cli',
  'openhands',
] as const;

/** A hook format other than the Gemini one. */
export type ForeignDialect = (typeof DIALECTS)[number];

/** Whose hook format a group speaks (docs/dialects.md); `gemini` is docs/contract.md §4. */
export type HookDialect = 'gemini' | ForeignDialect;

/** Each dialect's event keys, by hookbox event, in the agent's spelling. */
export const DIALECT_EVENTS: Record<ForeignDialect, { pre: string[]; post: string[] }> = {
  'claude-code': { pre: ['PreToolUse'], post: ['PostToolUse'] },
  'antigravity-cli': { pre: ['PreToolUse'], post: ['PostToolUse'] },
  codex: { pre: ['PreToolUse'], post: ['PostToolUse'] },
  openhands: { pre: ['PreToolUse'], post: ['PostToolUse'] },
  'gemini-cli': { pre: ['BeforeTool'], post: ['AfterTool'] },
  // camelCase events get Copilot CLI's camelCase payload; PascalCase ones its VS Code-compatible one.
  copilot: { pre: ['preToolUse', 'PreToolUse'], post: ['postToolUse', 'PostToolUse'] },
  cursor: {
    pre: ['preToolUse', 'beforeShellExecution', 'beforeReadFile', 'beforeMCPExecution'],
    post: ['postToolUse', 'afterShellExecution', 'afterFileEdit', 'afterMCPExecution'],
  },
};

/** Events of the agents that have no counterpart in hookbox (docs/dialects.md). */
export const EVENTS_WITHOUT_COUNTERPART = [
  // Claude Code, Codex, OpenHands, Antigravity CLI
  'PermissionRequest',
  'PermissionDenied',
  'PostToolUseFailure',
  'UserPromptSubmit',
  'Notification',
  'Stop',
  'StopFailure',
  'SubagentStart',
  'SubagentStop',
  'PreCompact',
  'PostCompact',
  'SessionStart',
  'SessionEnd',
  'Setup',
  'PreInvocation',
  'PostInvocation',
  // Gemini CLI
  'BeforeAgent',
  'AfterAgent',
  'BeforeModel',
  'AfterModel',
  'BeforeToolSelection',
  'PreCompress',
  // GitHub Copilot CLI, Cursor
  'sessionStart',
  'sessionEnd',
  'userPromptSubmitted',
  'agentStop',
  'subagentStart',
  'subagentStop',
  'errorOccurred',
  'preCompact',
  'permissionRequest',
  'notification',
  'postToolUseFailure',
  'beforeSubmitPrompt',
  'afterAgentResponse',
  'afterAgentThought',
  'beforeTabFileRead',
  'afterTabFileEdit',
  'stop',
  'workspaceOpen',
];
