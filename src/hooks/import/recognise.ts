import { basename, dirname, extname, resolve } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import type { ForeignDialect } from '../../config/dialect-events.js';
import { UserError } from '../../errors/index.js';

/**
 * What kind of hooks file `hookbox hooks import` was given (docs/dialects.md, "Import"), read as
 * the agent keeps it, and its hooks in one shape: named groups of `{event: [{matcher?, hooks:
 * [{type, command, timeout (s), on_error?, …}]}]}`. Agents whose handlers are flat (Copilot,
 * Cursor) get one rule per handler; Gemini CLI's millisecond timeouts become seconds.
 */

export type ImportedFormat =
  | 'claude-code-settings'
  | 'claude-code-plugin'
  | 'antigravity-cli'
  | 'codex-hooks-json'
  | 'codex-config-toml'
  | 'copilot'
  | 'cursor'
  | 'gemini-cli-settings'
  | 'openhands';

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

export interface Recognised {
  format: ImportedFormat;
  dialect: ForeignDialect;
  groups: [string, Json][];
  /** Where the paths of the file are relative to: the project holding the agent's folder. */
  projectDir: string;
  /** The JSON path of the events in the source, for messages. */
  at: (group: string) => string;
  /** What the reading itself left out, with its path in the source. */
  notCarried: { path: string; what: string }[];
}

export function bad(file: string, field: string, rule: string): UserError {
  return new UserError('invalid_hooks_config', `${file}: ${field}: ${rule}`, {
    details: { field, file },
  });
}

const NOT_A_CONFIG =
  'not a hooks config: expected a Claude Code, Codex, Copilot, Cursor, Gemini CLI, OpenHands or Antigravity CLI hooks file ({"hooks": {"PreToolUse": [...]}}, {"version": 1, "hooks": {...}}, {"<name>": {"PreToolUse": [...]}}, or a Codex config.toml with [hooks])';

/** The agent folder a file sits in (`.codex`, `.cursor`, …), and the project above it. */
function placeOf(file: string): { folder: string; projectDir: string } {
  const dir = dirname(resolve(file));
  const up = basename(dir);
  if (up === 'hooks' && basename(dirname(dir)) === '.github')
    return { folder: '.github/hooks', projectDir: dirname(dirname(dir)) };
  if (up.startsWith('.')) return { folder: up, projectDir: dirname(dir) };
  return { folder: '', projectDir: dir };
}

/** Reads TOML (a Codex config.toml) or JSON text. */
export function parseText(file: string, text: string): unknown {
  if (extname(file) === '.toml') {
    try {
      return parseToml(text);
    } catch (error) {
      throw bad(file, '(file)', `not valid TOML: ${(error as Error).message.split('\n')[0]}`);
    }
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw bad(file, '(file)', `not valid JSON: ${(error as Error).message}`);
  }
}

/** Codex's older flat `[[hooks.pre_tool_use]]` entries, as rules. */
const CODEX_SNAKE_EVENTS: Record<string, string> = {
  pre_tool_use: 'PreToolUse',
  post_tool_use: 'PostToolUse',
};

function codexToml(file: string, raw: Json, notCarried: Recognised['notCarried']): Json {
  if (!isObject(raw.hooks))
    throw bad(file, 'hooks', 'a Codex config.toml needs a [hooks] table to import');
  const events: Json = {};
  for (const [event, entries] of Object.entries(raw.hooks)) {
    const name = CODEX_SNAKE_EVENTS[event] ?? event;
    if (!Array.isArray(entries)) {
      events[name] = entries;
      continue;
    }
    events[name] = entries.map((entry: unknown) => {
      // [[hooks.PreToolUse]] with [[hooks.PreToolUse.hooks]] is already a rule.
      if (!isObject(entry) || Array.isArray(entry.hooks)) return entry;
      const { matcher, ...handler } = entry;
      if (Array.isArray(handler.command)) {
        handler.command = (handler.command as unknown[]).map(String).join(' ');
        notCarried.push({
          path: `hooks.${event}.command`,
          what: 'an argv command was joined into one /bin/sh -c command line',
        });
      }
      return {
        ...(matcher === undefined ? {} : { matcher }),
        hooks: [{ type: 'command', ...handler }],
      };
    });
  }
  return events;
}

/** Copilot's and Cursor's flat handlers, one rule each. */
function flatRules(
  dialect: 'copilot' | 'cursor',
  hooks: Json,
  notCarried: Recognised['notCarried'],
): Json {
  const events: Json = {};
  for (const [event, entries] of Object.entries(hooks)) {
    if (!Array.isArray(entries)) {
      events[event] = entries;
      continue;
    }
    events[event] = entries.map((entry: unknown, index) => {
      if (!isObject(entry)) return { hooks: [entry] };
      const at = `hooks.${event}[${index}]`;
      if (dialect === 'copilot') {
        const { bash, powershell, timeoutSec, cwd, env, type, matcher, ...rest } = entry;
        if (powershell !== undefined && bash === undefined)
          notCarried.push({
            path: `${at}.powershell`,
            what: 'a PowerShell-only handler (the sandbox runs bash)',
          });
        if (cwd !== undefined)
          notCarried.push({ path: `${at}.cwd`, what: 'cwd: hooks run in /workspace' });
        if (env !== undefined)
          notCarried.push({ path: `${at}.env`, what: 'env: hookbox sets the hook environment' });
        return {
          ...(matcher === undefined ? {} : { matcher }),
          hooks: [
            {
              ...rest,
              type: type ?? 'command',
              ...(bash === undefined ? {} : { command: bash }),
              ...(timeoutSec === undefined ? {} : { timeout: timeoutSec }),
            },
          ],
        };
      }
      const { matcher, failClosed, type, ...rest } = entry;
      return {
        ...(matcher === undefined ? {} : { matcher }),
        hooks: [
          {
            ...rest,
            type: type ?? 'command',
            ...(failClosed === true ? { on_error: 'deny' } : {}),
          },
        ],
      };
    });
  }
  return events;
}

/** Gemini CLI's timeouts are milliseconds. */
function geminiCliRules(hooks: Json): Json {
  const events: Json = {};
  for (const [event, rules] of Object.entries(hooks)) {
    events[event] = Array.isArray(rules)
      ? rules.map((rule: unknown) =>
          isObject(rule) && Array.isArray(rule.hooks)
            ? {
                ...rule,
                hooks: rule.hooks.map((handler: unknown) =>
                  isObject(handler) && typeof handler.timeout === 'number'
                    ? { ...handler, timeout: Math.ceil(handler.timeout / 1000) }
                    : handler,
                ),
              }
            : rule,
        )
      : rules;
  }
  return events;
}

function flatHandlerKey(hooks: Json): 'bash' | 'command' | undefined {
  for (const entries of Object.values(hooks))
    if (Array.isArray(entries))
      for (const entry of entries)
        if (isObject(entry) && !Array.isArray(entry.hooks))
          return 'bash' in entry || 'powershell' in entry ? 'bash' : 'command';
  return undefined;
}

export function recognise(file: string, raw: unknown): Recognised {
  const { folder, projectDir } = placeOf(file);
  const notCarried: Recognised['notCarried'] = [];
  const result = (
    format: ImportedFormat,
    dialect: ForeignDialect,
    events: Json,
    prefix = 'hooks',
  ): Recognised => ({
    format,
    dialect,
    groups: [[dialect === 'claude-code' ? 'claude-code' : dialect, events]],
    projectDir,
    at: () => prefix,
    notCarried,
  });
  if (!isObject(raw)) throw bad(file, '(top level)', NOT_A_CONFIG);
  if (extname(file) === '.toml')
    return result('codex-config-toml', 'codex', codexToml(file, raw, notCarried));
  if ('hooks' in raw) {
    if (!isObject(raw.hooks))
      throw bad(file, 'hooks', 'must be an object of events ({"PreToolUse": [...], …})');
    const hooks = raw.hooks;
    const flat = flatHandlerKey(hooks);
    if (folder === '.github/hooks' || flat === 'bash')
      return result('copilot', 'copilot', flatRules('copilot', hooks, notCarried));
    if (folder === '.cursor' || flat === 'command')
      return result('cursor', 'cursor', flatRules('cursor', hooks, notCarried));
    if (folder === '.gemini' || 'BeforeTool' in hooks || 'AfterTool' in hooks)
      return result('gemini-cli-settings', 'gemini-cli', geminiCliRules(hooks));
    if (folder === '.codex') return result('codex-hooks-json', 'codex', hooks);
    if (folder === '.openhands') return result('openhands', 'openhands', hooks);
    return {
      ...result('claude-code-settings', 'claude-code', hooks),
      format: 'claude-code-settings',
    };
  }
  if (folder === '.openhands') return { ...result('openhands', 'openhands', raw), at: () => '' };
  return {
    format: 'antigravity-cli',
    dialect: 'antigravity-cli',
    groups: [],
    projectDir,
    at: (g) => g,
    notCarried,
  };
}
