import { existsSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';

/** Where an imported config's paths are relative to (docs/dialects.md, "Import"). */
export interface PathRoots {
  /** `$CLAUDE_PROJECT_DIR`, and what relative paths are relative to. */
  projectDir: string;
  /** `${CLAUDE_PLUGIN_ROOT}`, for a plugin's hooks/hooks.json. */
  pluginRoot?: string;
  /** The folder of the config file: a relative path not found under projectDir is looked for here. */
  fileDir: string;
  /** `~`. @default os.homedir() */
  home?: string;
}

const PROJECT_DIR_VARIABLES = [
  'CLAUDE_PROJECT_DIR',
  'GEMINI_PROJECT_DIR',
  'CURSOR_PROJECT_DIR',
  'OPENHANDS_PROJECT_DIR',
];

/** Extensions of scripts an interpreter is given (`python3 check.py`, `node guard.js`). */
const SCRIPT_EXTENSION = /\.(sh|bash|py|js|mjs|cjs|ts|rb|pl|jq)$/;

/** One word of a command line, with where it sits in it (quotes included). */
interface Word {
  text: string;
  start: number;
  end: number;
}

/**
 * Splits a command line into shell words: adjacent quoted and unquoted parts make one word
 * (`"$CLAUDE_PROJECT_DIR"/.claude/hooks/x.sh`); `value` is the word without its quotes.
 */
function words(command: string): (Word & { value: string })[] {
  const out: (Word & { value: string })[] = [];
  let i = 0;
  while (i < command.length) {
    while (i < command.length && /[\s;&|<>()]/.test(command[i]!)) i++;
    if (i >= command.length) break;
    const start = i;
    let value = '';
    while (i < command.length && !/[\s;&|<>()]/.test(command[i]!)) {
      const c = command[i]!;
      if (c === "'") {
        const close = command.indexOf("'", i + 1);
        const stop = close < 0 ? command.length : close;
        value += command.slice(i + 1, stop);
        i = stop + 1;
      } else if (c === '"') {
        i++;
        while (i < command.length && command[i] !== '"') {
          if (command[i] === '\\' && i + 1 < command.length) i++;
          value += command[i];
          i++;
        }
        i++;
      } else if (c === '\\' && i + 1 < command.length) {
        value += command[i + 1];
        i += 2;
      } else {
        value += c;
        i++;
      }
    }
    const end = Math.min(i, command.length);
    out.push({ text: command.slice(start, end), value, start, end });
  }
  return out;
}

/** `$CLAUDE_PROJECT_DIR`, `${CLAUDE_PLUGIN_ROOT}`, `~/` replaced; undefined if a variable is unknown. */
function expand(value: string, roots: PathRoots): string | undefined {
  const home = roots.home ?? homedir();
  let unknown = false;
  let text = value.replace(/\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?/g, (_, name: string) => {
    // Each agent's name for the project folder (docs/dialects.md, "Import").
    if (PROJECT_DIR_VARIABLES.includes(name)) return roots.projectDir;
    if (name === 'CLAUDE_PLUGIN_ROOT' && roots.pluginRoot) return roots.pluginRoot;
    if (name === 'HOME') return home;
    unknown = true;
    return '';
  });
  if (unknown) return undefined;
  if (text === '~' || text.startsWith('~/')) text = join(home, text.slice(1));
  return text;
}

/** Whether a word names a script rather than a program on the PATH or an option. */
function looksLikeScript(value: string): boolean {
  if (value === '' || value.startsWith('-') || /\s/.test(value)) return false;
  return SCRIPT_EXTENSION.test(value) || /^(\/|\.\.?\/|~\/|\$)/.test(value);
}

export interface ScriptReference {
  /** The word as written in the command. */
  written: string;
  /** The file it names, when found. */
  file?: string;
  start: number;
  end: number;
}

function isFile(path: string): boolean {
  return existsSync(path) && statSync(path).isFile();
}

/** The scripts a command names, found (or not) on this machine. */
export function scriptsOf(command: string, roots: PathRoots): ScriptReference[] {
  const out: ScriptReference[] = [];
  for (const word of words(command)) {
    if (!looksLikeScript(word.value)) continue;
    if (/^\/(usr|bin|sbin|etc|dev|proc|tmp)\//.test(word.value)) continue; // system programs
    const expanded = expand(word.value, roots);
    let file: string | undefined;
    if (expanded !== undefined) {
      const candidates = isAbsolute(expanded)
        ? [expanded]
        : [resolve(roots.projectDir, expanded), resolve(roots.fileDir, expanded)];
      file = candidates.find(isFile);
    }
    out.push({ written: word.text, start: word.start, end: word.end, ...(file ? { file } : {}) });
  }
  return out;
}
