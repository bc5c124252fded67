import type { HookDialect } from '../../config/hooks-config.js';
import { antigravityCliDialect } from './antigravity-cli.js';
import { claudeCodeDialect } from './claude-code.js';
import { geminiDialect } from './gemini.js';
import type { Dialect } from './types.js';

const DIALECTS: Record<HookDialect, Dialect> = {
  gemini: geminiDialect,
  'claude-code': claudeCodeDialect,
  'antigravity-cli': antigravityCliDialect,
};

/** The hook format of a group (docs/dialects.md). */
export function dialectOf(id: HookDialect): Dialect {
  return DIALECTS[id];
}

export type { Dialect } from './types.js';
