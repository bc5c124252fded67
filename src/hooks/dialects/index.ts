import type { HookDialect } from '../../config/hooks-config.js';
import { antigravityCliDialect } from './antigravity-cli.js';
import { claudeCodeDialect } from './claude-code.js';
import { codexDialect } from './codex.js';
import { copilotDialect, copilotVsCodeDialect } from './copilot.js';
import { cursorDialect } from './cursor.js';
import { geminiCliDialect } from './gemini-cli.js';
import { geminiDialect } from './gemini.js';
import { openHandsDialect } from './openhands.js';
import type { Dialect } from './types.js';

/**
 * The hook format of a group (docs/dialects.md), for the event key a rule was written under:
 * Copilot's PascalCase events get its VS Code-compatible stdin, and each Cursor event its own.
 */
export function dialectOf(id: HookDialect, event = ''): Dialect {
  switch (id) {
    case 'gemini':
      return geminiDialect;
    case 'claude-code':
      return claudeCodeDialect;
    case 'antigravity-cli':
      return antigravityCliDialect;
    case 'codex':
      return codexDialect;
    case 'openhands':
      return openHandsDialect;
    case 'gemini-cli':
      return geminiCliDialect;
    case 'copilot':
      return /^[A-Z]/.test(event) ? copilotVsCodeDialect : copilotDialect;
    case 'cursor':
      return cursorDialect(event || 'preToolUse');
  }
}

export type { Dialect } from './types.js';
