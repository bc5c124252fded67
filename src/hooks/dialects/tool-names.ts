import type { ForeignDialect } from '../../config/dialect-events.js';
import { CODEX_TOOL_NAMES } from './codex.js';
import { copilotTools } from './copilot.js';
import { CURSOR_TOOL_NAMES } from './cursor.js';
import { geminiCliTools } from './gemini-cli.js';
import { openHandsTools } from './openhands.js';

/**
 * The tool names hookbox's tools are shown under, per dialect (docs/dialects.md, mapping tables):
 * what a matcher must name to ever fire.
 */
export const FOREIGN_TOOL_NAMES: Record<ForeignDialect, readonly string[]> = {
  'claude-code': ['Bash', 'Read', 'Write', 'Edit', 'LS', 'Glob', 'Grep'],
  'antigravity-cli': [
    'run_command',
    'view_file',
    'write_to_file',
    'replace_file_content',
    'list_dir',
    'find_by_name',
    'grep_search',
  ],
  codex: CODEX_TOOL_NAMES,
  copilot: copilotTools.names,
  cursor: CURSOR_TOOL_NAMES,
  'gemini-cli': geminiCliTools.names,
  openhands: openHandsTools.names,
};
