import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { basename, dirname, extname, join, relative, resolve } from 'node:path';
import { DIALECT_EVENTS, type ForeignDialect } from '../../config/dialect-events.js';
import { MAX_HOOK_TIMEOUT_SECONDS, parseHooksConfig } from '../../config/hooks-config.js';
import { UserError } from '../../errors/index.js';
import { FOREIGN_TOOL_NAMES } from '../dialects/tool-names.js';
import { compileMatcher } from '../../config/matcher.js';
import { bad, parseText, recognise as recogniseAgent, type ImportedFormat } from './recognise.js';
import { scriptsOf, type PathRoots } from './script-paths.js';

/**
 * `hookbox hooks import FILE --out DIR` (docs/dialects.md, "Import"): an agent's hooks file as it
 * keeps it (Claude Code settings or plugin, Antigravity CLI, Codex hooks.json or config.toml,
 * Copilot .github/hooks/*.json, Cursor, Gemini CLI settings.json, OpenHands) becomes
 * DIR/.agents/hooks.json with the right dialect, and the scripts its commands name are copied under
 * DIR/.agents/hooks-scripts/. What cannot be carried over is said, and the rest is imported.
 */

export type { ImportedFormat } from './recognise.js';

export interface ImportReport {
  format: ImportedFormat;
  dialect: ForeignDialect;
  /** DIR/.agents/hooks.json */
  hooksJson: string;
  groups: string[];
  handlers: number;
  /** Each copied script: where it was, and its path in the sandbox. */
  copied: { from: string; to: string }[];
  /** What was not carried over, each with its JSON path in the source file. */
  notCarried: { path: string; what: string }[];
}

/**
 * Each agent's timeout when a command hook names none (seconds): Claude Code, OpenHands and
 * Gemini CLI 60, Copilot CLI 30; Codex has none, so hookbox's longest; Cursor's is hookbox's.
 */
const DEFAULT_TIMEOUT_SECONDS: Partial<Record<ForeignDialect, number>> = {
  'claude-code': 60,
  openhands: 60,
  'gemini-cli': 60,
  copilot: 30,
  codex: MAX_HOOK_TIMEOUT_SECONDS,
};

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

const NOT_A_CONFIG =
  'not a hooks config: expected a Claude Code settings file or plugin hooks/hooks.json ({"hooks": {"PreToolUse": [...]}}) or an Antigravity CLI hooks.json ({"<name>": {"PreToolUse": [...]}})';

/** What kind of file it is, and its event maps by group name. */
function recognise(
  file: string,
  raw: unknown,
): { format: ImportedFormat; groups: [string, Json][] } {
  if (!isObject(raw)) throw bad(file, '(top level)', NOT_A_CONFIG);
  if ('hooks' in raw && !isObject(raw.hooks))
    throw bad(file, 'hooks', 'must be an object of events ({"PreToolUse": [...], …})');
  if ('hooks' in raw) {
    if (!isObject(raw.hooks))
      throw bad(file, 'hooks', 'must be an object of events ({"PreToolUse": [...], …})');
    const inPlugin =
      basename(dirname(resolve(file))) === 'hooks' &&
      existsSync(join(dirname(dirname(resolve(file))), '.claude-plugin'));
    const plugin = inPlugin || JSON.stringify(raw.hooks).includes('CLAUDE_PLUGIN_ROOT');
    return {
      format: plugin ? 'claude-code-plugin' : 'claude-code-settings',
      groups: [['hooks', raw.hooks]],
    };
  }
  const groups = Object.entries(raw).filter(([key]) => !key.startsWith('_'));
  const gemini = groups.find(
    ([, group]) =>
      isObject(group) && ('pre_tool_execution' in group || 'post_tool_execution' in group),
  );
  if (gemini)
    throw bad(
      file,
      gemini[0],
      'is already in the Gemini format (pre_tool_execution / post_tool_execution): use the file as .agents/hooks.json as it is',
    );
  const eventful = groups.filter(
    ([, group]) =>
      isObject(group) && Object.keys(group).some((key) => /^[A-Z][A-Za-z]+$/.test(key)),
  );
  if (groups.length === 0 || eventful.length !== groups.length)
    throw bad(
      file,
      eventful.length === 0 ? '(top level)' : groups.find((g) => !eventful.includes(g))![0],
      NOT_A_CONFIG,
    );
  return { format: 'antigravity-cli', groups: groups as [string, Json][] };
}

function rootsOf(file: string, format: ImportedFormat, home?: string): PathRoots {
  const fileDir = dirname(resolve(file));
  const up = basename(fileDir);
  if (format === 'claude-code-plugin') {
    const pluginRoot = up === 'hooks' ? dirname(fileDir) : fileDir;
    return { projectDir: pluginRoot, pluginRoot, fileDir, ...(home ? { home } : {}) };
  }
  // .claude/settings.json and .agents/hooks.json live in the project's root.
  const projectDir = up === '.claude' || up === '.agents' ? dirname(fileDir) : fileDir;
  return { projectDir, fileDir, ...(home ? { home } : {}) };
}

function pluginName(roots: PathRoots): string | undefined {
  if (!roots.pluginRoot) return undefined;
  try {
    const manifest = JSON.parse(
      readFileSync(join(roots.pluginRoot, '.claude-plugin', 'plugin.json'), 'utf8'),
    ) as Json;
    return typeof manifest.name === 'string' && manifest.name !== '' ? manifest.name : undefined;
  } catch {
    return undefined;
  }
}

/** Copies scripts under DIR/.agents/hooks-scripts/, one name per distinct file. */
class ScriptCopier {
  private readonly byFile = new Map<string, string>();
  private readonly taken = new Set<string>();
  readonly copied: { from: string; to: string }[] = [];
  constructor(private readonly scriptsDir: string) {}

  copy(file: string): string {
    const known = this.byFile.get(file);
    if (known) return known;
    const ext = extname(file);
    const stem = basename(file, ext);
    let name = `${stem}${ext}`;
    for (let n = 2; this.taken.has(name); n++) name = `${stem}-${n}${ext}`;
    this.taken.add(name);
    mkdirSync(this.scriptsDir, { recursive: true });
    const target = join(this.scriptsDir, name);
    copyFileSync(file, target);
    chmodSync(target, statSync(file).mode & 0o777);
    const inSandbox = `/.agents/hooks-scripts/${name}`;
    this.byFile.set(file, inSandbox);
    this.copied.push({ from: file, to: inSandbox });
    return inSandbox;
  }
}

/** Reads FILE and writes DIR/.agents/hooks.json and the scripts. */
export function importHooks(
  file: string,
  outDir: string,
  options: { home?: string } = {},
): ImportReport {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new UserError(
      'invalid_argument',
      `${file}: cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
      {
        details: { field: 'FILE', file },
      },
    );
  }
  const raw = parseText(file, text);
  const agent = recogniseAgent(file, raw);
  const own = agent.dialect !== 'claude-code' && agent.dialect !== 'antigravity-cli';
  const { format, groups } = own ? agent : recognise(file, raw);
  const dialect: ForeignDialect = own
    ? agent.dialect
    : format === 'antigravity-cli'
      ? 'antigravity-cli'
      : 'claude-code';
  const roots = own
    ? {
        projectDir: agent.projectDir,
        fileDir: dirname(resolve(file)),
        ...(options.home ? { home: options.home } : {}),
      }
    : rootsOf(file, format, options.home);
  const agentsDir = join(outDir, '.agents');
  const hooksJson = join(agentsDir, 'hooks.json');
  const copier = new ScriptCopier(join(agentsDir, 'hooks-scripts'));
  const notCarried: ImportReport['notCarried'] = [...agent.notCarried];
  const out: Json = existsSync(hooksJson)
    ? (JSON.parse(readFileSync(hooksJson, 'utf8')) as Json)
    : {};
  const names: string[] = [];
  let handlers = 0;
  const events = [...DIALECT_EVENTS[dialect].pre, ...DIALECT_EVENTS[dialect].post];

  for (const [groupName, eventMap] of groups) {
    const at = own ? agent.at(groupName) : format === 'antigravity-cli' ? groupName : 'hooks';
    if (!isObject(eventMap)) throw bad(file, at || '(top level)', 'must be an object of events');
    const name =
      own || format === 'antigravity-cli'
        ? groupName
        : (pluginName(roots) ??
          (format === 'claude-code-plugin' ? 'claude-plugin' : 'claude-code'));
    const path = (rest: string) => (at ? `${at}.${rest}` : rest);
    if (name in out)
      throw bad(
        file,
        at,
        `${hooksJson} already has a group ${JSON.stringify(name)}; import into another --out folder`,
      );
    const group: Json = { dialect };
    for (const [event, rules] of Object.entries(eventMap)) {
      if (event.startsWith('_')) continue;
      if (event === 'enabled' && typeof rules === 'boolean') {
        group.enabled = rules;
        continue;
      }
      if (event === 'version' || event === '$schema') continue;
      if (!events.includes(event)) {
        notCarried.push({
          path: path(event),
          what: `hookbox has no counterpart of the ${event} event`,
        });
        continue;
      }
      if (!Array.isArray(rules)) throw bad(file, path(event), 'must be an array of rules');
      const carried: Json[] = [];
      rules.forEach((rule: unknown, r) => {
        const rulePath = path(`${event}[${r}]`);
        if (!isObject(rule) || !Array.isArray(rule.hooks))
          throw bad(file, rulePath, 'must be {"matcher"?, "hooks": [...]}');
        const matcher = rule.matcher;
        if (matcher !== undefined && typeof matcher !== 'string') {
          notCarried.push({ path: `${rulePath}.matcher`, what: 'a matcher that is not a string' });
          return;
        }
        const compiled = compileMatcher(matcher);
        if (!compiled.ok) {
          notCarried.push({ path: `${rulePath}.matcher`, what: compiled.message });
          return;
        }
        if (!FOREIGN_TOOL_NAMES[dialect].some((tool) => compiled.matcher.matches(tool)))
          notCarried.push({
            path: `${rulePath}.matcher`,
            what: `matcher ${JSON.stringify(matcher)} names no tool hookbox offers (${FOREIGN_TOOL_NAMES[dialect].join(', ')}); kept, it never fires`,
          });
        const hooks: Json[] = [];
        rule.hooks.forEach((handler: unknown, h) => {
          const handlerPath = `${rulePath}.hooks[${h}]`;
          const carriedHandler = carryHandler(
            handler,
            handlerPath,
            dialect,
            roots,
            copier,
            notCarried,
          );
          if (carriedHandler) hooks.push(carriedHandler);
        });
        if (hooks.length > 0)
          carried.push({ ...(matcher === undefined ? {} : { matcher }), hooks });
        handlers += hooks.length;
      });
      if (carried.length > 0) group[event] = carried;
    }
    out[name] = group;
    names.push(name);
  }
  mkdirSync(agentsDir, { recursive: true });
  const written = `${JSON.stringify(out, null, 2)}\n`;
  parseHooksConfig(written, hooksJson); // what we write must be a valid hooks.json
  writeFileSync(hooksJson, written);
  return { format, dialect, hooksJson, groups: names, handlers, copied: copier.copied, notCarried };
}

/** Keys of a Claude Code command handler that hookbox does not need (and says so). */
const DROPPED_KEYS: Record<string, string> = {
  async: 'runs synchronously in hookbox (hooks gate the call; docs/contract.md §6)',
  asyncRewake: 'runs synchronously in hookbox',
  statusMessage: 'no spinner in a remote sandbox',
  once: 'runs every time in hookbox',
  shell: 'commands run with /bin/sh -c (docs/contract.md §4)',
  if: 'conditions on permission rules have no counterpart in hookbox',
};

function carryHandler(
  handler: unknown,
  path: string,
  dialect: ForeignDialect,
  roots: PathRoots,
  copier: ScriptCopier,
  notCarried: ImportReport['notCarried'],
): Json | undefined {
  if (!isObject(handler)) {
    notCarried.push({ path, what: 'a handler that is not an object' });
    return undefined;
  }
  const type = handler.type;
  if (type !== 'command' && type !== 'http') {
    notCarried.push({
      path: `${path}.type`,
      what: `${JSON.stringify(type)} handlers (hookbox runs "command" and "http" handlers)`,
    });
    return undefined;
  }
  for (const [key, why] of Object.entries(DROPPED_KEYS))
    if (key in handler) notCarried.push({ path: `${path}.${key}`, what: `${key}: ${why}` });
  let timeout =
    typeof handler.timeout === 'number' && handler.timeout > 0
      ? Math.ceil(handler.timeout)
      : DEFAULT_TIMEOUT_SECONDS[dialect];
  if (timeout !== undefined && timeout > MAX_HOOK_TIMEOUT_SECONDS) {
    notCarried.push({
      path: `${path}.timeout`,
      what: `timeout ${timeout} s, cut to hookbox's limit of ${MAX_HOOK_TIMEOUT_SECONDS} s`,
    });
    timeout = MAX_HOOK_TIMEOUT_SECONDS;
  }
  const timing = timeout === undefined ? {} : { timeout };
  if (type === 'http') {
    if (typeof handler.url !== 'string') {
      notCarried.push({ path: `${path}.url`, what: 'an http handler without a url' });
      return undefined;
    }
    return {
      type: 'http',
      url: handler.url,
      ...(isObject(handler.headers) ? { headers: handler.headers } : {}),
      ...timing,
    };
  }
  if (typeof handler.command !== 'string' || handler.command.trim() === '') {
    notCarried.push({ path: `${path}.command`, what: 'a command handler without a command' });
    return undefined;
  }
  let command = handler.command;
  const references = scriptsOf(command, roots);
  const missing = references.filter((reference) => !reference.file);
  if (missing.length > 0) {
    const where = `${roots.projectDir}${roots.fileDir !== roots.projectDir ? ` or ${roots.fileDir}` : ''}`;
    notCarried.push({
      path: `${path}.command`,
      what: `script ${missing.map((m) => m.written).join(', ')} not found (looked under ${where}); the handler is left out`,
    });
    return undefined;
  }
  for (const reference of [...references].reverse()) {
    const inSandbox = copier.copy(reference.file!);
    command = command.slice(0, reference.start) + inSandbox + command.slice(reference.end);
  }
  const onError = handler.on_error === 'deny' ? { on_error: 'deny' } : {};
  return { type: 'command', command, ...timing, ...onError };
}

/** The report as text, for the terminal. */
export function importReportText(report: ImportReport, cwd = process.cwd()): string {
  const shown = (path: string) => {
    const near = relative(cwd, path);
    return near === '' || near.startsWith('..') ? path : near;
  };
  const lines = [
    `imported ${report.handlers} handler(s) from ${/^[aeiou]/.test(report.format) ? 'an' : 'a'} ${report.format} file into ${shown(report.hooksJson)} (group${report.groups.length === 1 ? '' : 's'} ${report.groups.map((g) => JSON.stringify(g)).join(', ')}, dialect ${report.dialect})`,
    ...report.copied.map((copy) => `  copied ${shown(copy.from)} → ${copy.to}`),
  ];
  if (report.notCarried.length > 0) {
    lines.push('not carried over:');
    for (const item of report.notCarried) lines.push(`  - ${item.path}: ${item.what}`);
  }
  return `${lines.join('\n')}\n`;
}
