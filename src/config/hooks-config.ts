import { z } from 'zod';
import { UserError } from '../errors/index.js';
import { compileMatcher, type ToolMatcher } from './matcher.js';
import {
  DIALECT_EVENTS,
  DIALECTS,
  EVENTS_WITHOUT_COUNTERPART,
  type ForeignDialect,
  type HookDialect,
} from './dialect-events.js';
import { jsonTextDepth, MAX_JSON_DEPTH } from './json-depth.js';
import { describeIssues, formatPath, knownKeysOf } from '../errors/zod-issues.js';

/** What a handler's failure means: `allow` (compatible default) or `deny` (fail closed). */
export type OnError = 'allow' | 'deny';

/**
 * Whose rights a command handler runs with (docs/gates.md, "Running workspace code from a hook"):
 * `hook`, the hook user, or `tool`, the user tool code runs as, for handlers that run what the
 * workspace holds (test runners, formatters, `make`, `npm`).
 */
export type RunAs = 'hook' | 'tool';

export interface CommandHandler {
  type: 'command';
  /** Run with `/bin/sh -c` inside the sandbox, as the user `runAs` names, cwd `/workspace`. */
  command: string;
  /**
   * `tool` runs the handler as the tool user, never prestarted and never a worker: what it runs
   * from the workspace cannot read or write the hook state dir. Our extension of hooks.json
   * (`run_as`). @default 'hook'
   */
  runAs: RunAs;
  timeoutSeconds: number;
  onError: OnError;
  /**
   * Keep the next process of this handler started ahead, waiting on its stdin (docs/gates.md,
   * "Prestart and workers"). Our extension of hooks.json. Left out (undefined), the sandbox agent
   * prestarts python programs run without shell redirections or pipelines.
   * @default undefined (automatic)
   */
  prestart: boolean | undefined;
  /**
   * Run the handler as one long-lived process that answers one JSON line per event line
   * (docs/gates.md, "Prestart and workers"). Our extension of hooks.json. @default false
   */
  worker: boolean;
}

export interface HttpHandler {
  type: 'http';
  url: string;
  headers: Record<string, string>;
  timeoutSeconds: number;
  onError: OnError;
}

export type HookHandler = CommandHandler | HttpHandler;

export interface HookRule {
  matcher: ToolMatcher;
  handlers: HookHandler[];
  /** JSON path of the rule in hooks.json, for messages. */
  path: string;
  /** The event key it was written under (`pre_tool_execution`, `PreToolUse`, `beforeReadFile`, …). */
  event: string;
}

export { type HookDialect } from './dialect-events.js';

export interface HookGroup {
  name: string;
  enabled: boolean;
  /** @default 'gemini' */
  dialect: HookDialect;
  pre_tool_execution: HookRule[];
  post_tool_execution: HookRule[];
}

/** A validated hooks.json: its groups in file order. */
export interface HooksConfig {
  groups: HookGroup[];
}

/** The default handler timeout, in seconds (docs/contract.md §4). */
export const DEFAULT_HOOK_TIMEOUT_SECONDS = 30;
export const MAX_HOOK_TIMEOUT_SECONDS = 600;

const timeoutSchema = z
  .number({ error: 'timeout must be a number of seconds' })
  .int({ error: `timeout must be a whole number of seconds from 1 to ${MAX_HOOK_TIMEOUT_SECONDS}` })
  .min(1, {
    error: `timeout must be a whole number of seconds from 1 to ${MAX_HOOK_TIMEOUT_SECONDS}`,
  })
  .max(MAX_HOOK_TIMEOUT_SECONDS, {
    error: `timeout must be a whole number of seconds from 1 to ${MAX_HOOK_TIMEOUT_SECONDS}`,
  })
  .default(DEFAULT_HOOK_TIMEOUT_SECONDS);

const onErrorSchema = z
  .enum(['allow', 'deny'], { error: 'on_error must be "allow" or "deny"' })
  .default('allow');

/** A command runs as `/bin/sh -c COMMAND`; Linux refuses one argument of 128 KiB (with its NUL). */
const LONGEST_COMMAND_BYTES = 128 * 1024 - 1;

const commandHandlerSchema = z
  .strictObject({
    type: z.literal('command'),
    command: z
      .string({ error: 'command must be a string' })
      .trim()
      .min(1, { error: 'command must not be empty' })
      .refine((command) => Buffer.byteLength(command) <= LONGEST_COMMAND_BYTES, {
        error: `command must be at most ${LONGEST_COMMAND_BYTES} bytes (the kernel's limit on one argument of /bin/sh -c); put longer logic in a script under .agents/`,
      }),
    timeout: timeoutSchema,
    on_error: onErrorSchema,
    // hookbox's extensions (docs/gates.md, "Prestart and workers").
    prestart: z.boolean({ error: 'prestart must be true or false' }).optional(),
    worker: z.boolean({ error: 'worker must be true or false' }).default(false),
    // docs/gates.md, "Running workspace code from a hook".
    run_as: z.enum(['hook', 'tool'], { error: 'run_as must be "hook" or "tool"' }).default('hook'),
  })
  .refine((handler) => handler.run_as === 'hook' || !handler.worker, {
    error: 'a worker runs as the hook user: "worker": true cannot go with "run_as": "tool"',
    path: ['worker'],
  })
  .refine((handler) => handler.run_as === 'hook' || handler.prestart !== true, {
    error: 'a "run_as": "tool" handler starts per event: "prestart": true cannot go with it',
    path: ['prestart'],
  });

const httpHandlerSchema = z.strictObject({
  type: z.literal('http'),
  url: z
    .string({ error: 'url must be a string' })
    .refine((value) => URL.canParse(value) && new URL(value).protocol === 'https:', {
      error: 'url must be an absolute https:// URL',
    }),
  headers: z.record(z.string(), z.string({ error: 'header values must be strings' })).default({}),
  timeout: timeoutSchema,
  on_error: onErrorSchema,
});

const handlerSchema = z.discriminatedUnion('type', [commandHandlerSchema, httpHandlerSchema], {
  error: 'type must be "command" or "http"',
});

const ruleSchema = z.strictObject({
  matcher: z.string({ error: 'matcher must be a string' }).optional(),
  hooks: z.array(handlerSchema, { error: 'hooks must be an array of handlers' }),
});

const groupSchema = z.strictObject(
  {
    enabled: z.boolean({ error: 'enabled must be true or false' }).default(true),
    pre_tool_execution: z
      .array(ruleSchema, { error: 'pre_tool_execution must be an array of rules' })
      .default([]),
    post_tool_execution: z
      .array(ruleSchema, { error: 'post_tool_execution must be an array of rules' })
      .default([]),
  },
  { error: 'a group must be an object' },
);

const fileSchema = z.record(z.string(), z.unknown(), {
  error: 'hooks.json must be a JSON object of groups',
});

/** A dialect group's schema: its agent's event keys (docs/dialects.md). */
function dialectGroupSchema(dialect: ForeignDialect) {
  const keys = [...DIALECT_EVENTS[dialect].pre, ...DIALECT_EVENTS[dialect].post];
  return z.strictObject(
    {
      dialect: z.literal(dialect),
      enabled: z.boolean({ error: 'enabled must be true or false' }).default(true),
      ...Object.fromEntries(
        keys.map((key) => [
          key,
          z.array(ruleSchema, { error: `${key} must be an array of rules` }).default([]),
        ]),
      ),
    },
    { error: 'a group must be an object' },
  );
}

const GEMINI_EVENT_KEYS = ['pre_tool_execution', 'post_tool_execution'];
const FOREIGN_EVENT_KEYS = [
  ...new Set(Object.values(DIALECT_EVENTS).flatMap((events) => [...events.pre, ...events.post])),
];

/** Clearer words for the keys a dialect mix-up produces than "unknown key". */
function explainKey(
  problem: HooksConfigProblem,
  group: string,
  dialect: HookDialect,
): HooksConfigProblem {
  const match = /^unknown key "([^"]+)"/.exec(problem.message);
  if (!match || problem.path !== formatPath([group, match[1]!])) return problem;
  const key = match[1]!;
  if (dialect !== 'gemini') {
    const own = [...DIALECT_EVENTS[dialect].pre, ...DIALECT_EVENTS[dialect].post].join(', ');
    if (GEMINI_EVENT_KEYS.includes(key))
      return {
        path: problem.path,
        message: `a "${dialect}" group uses that agent's event names (${own}), not ${key} (or leave "dialect" out for the Gemini format)`,
      };
    if (EVENTS_WITHOUT_COUNTERPART.includes(key))
      return {
        path: problem.path,
        message: `hookbox has no counterpart of the ${key} event; a "${dialect}" group takes ${own}`,
      };
    if (FOREIGN_EVENT_KEYS.includes(key))
      return {
        path: problem.path,
        message: `${key} is not a ${dialect} event; a "${dialect}" group takes ${own}`,
      };
  }
  if (dialect === 'gemini' && FOREIGN_EVENT_KEYS.includes(key)) {
    const speakers = DIALECTS.filter((d) =>
      [...DIALECT_EVENTS[d].pre, ...DIALECT_EVENTS[d].post].includes(key),
    );
    return {
      path: problem.path,
      message: `${key} is an event of ${speakers.join(' / ')} hooks: give the group "dialect": ${speakers.map((d) => JSON.stringify(d)).join(' or ')}, or use the Gemini event names pre_tool_execution / post_tool_execution`,
    };
  }
  return problem;
}

type RuleInput = z.output<typeof ruleSchema>;
/** A group's rules by hookbox event, each with the key it was written under. */
interface GroupInput {
  enabled: boolean;
  pre_tool_execution: { event: string; rule: RuleInput }[];
  post_tool_execution: { event: string; rule: RuleInput }[];
}

/** Parses one group in its dialect; problems carry the full JSON path. */
function parseGroup(
  name: string,
  raw: unknown,
  problems: HooksConfigProblem[],
): { dialect: HookDialect; group: GroupInput } | undefined {
  let dialect: HookDialect = 'gemini';
  if (raw !== null && typeof raw === 'object' && !Array.isArray(raw) && 'dialect' in raw) {
    const value = raw.dialect;
    if (!(DIALECTS as readonly unknown[]).includes(value)) {
      problems.push({
        path: formatPath([name, 'dialect']),
        message: `unknown dialect ${JSON.stringify(value)}: must be ${DIALECTS.map((d) => JSON.stringify(d)).join(' or ')} (leave "dialect" out for the Gemini format)`,
      });
      return undefined;
    }
    dialect = value as HookDialect;
  }
  const schema = dialect === 'gemini' ? groupSchema : dialectGroupSchema(dialect);
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const known = knownKeysOf(schema);
    problems.push(
      ...parsed.error.issues
        .map((issue) => ({ ...issue, path: [name, ...issue.path] }))
        .flatMap((issue) => describeIssues([issue], (path) => known(path.slice(1))))
        .map((problem) => explainKey(problem, name, dialect)),
    );
    return undefined;
  }
  const data = parsed.data as Record<string, unknown> & { enabled: boolean };
  const eventKeys =
    dialect === 'gemini'
      ? { pre: ['pre_tool_execution'], post: ['post_tool_execution'] }
      : DIALECT_EVENTS[dialect];
  // Keys in file order, so rules run in the order they were written.
  const order = Object.keys(raw as object);
  const rulesOf = (keys: string[]) =>
    keys
      .filter((key) => Array.isArray(data[key]))
      .sort((a, b) => order.indexOf(a) - order.indexOf(b))
      .flatMap((event) => (data[event] as RuleInput[]).map((rule) => ({ event, rule })));
  return {
    dialect,
    group: {
      enabled: data.enabled,
      pre_tool_execution: rulesOf(eventKeys.pre),
      post_tool_execution: rulesOf(eventKeys.post),
    },
  };
}

/** Keys that begin with `_` (such as `_comment`) are comments at every level. */
function withoutComments(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutComments);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([key]) => !key.startsWith('_'))
        .map(([key, inner]) => [key, withoutComments(inner)]),
    );
  }
  return value;
}

export interface HooksConfigProblem {
  path: string;
  message: string;
}

export type HooksConfigParse =
  { success: true; config: HooksConfig } | { success: false; problems: HooksConfigProblem[] };

/** Non-throwing parse of hooks.json text: every problem with its JSON path. */
export function safeParseHooksConfig(text: string): HooksConfigParse {
  // Measured before parsing: the checks below recurse, and a deep file must not overflow the stack.
  if (jsonTextDepth(text) > MAX_JSON_DEPTH)
    return {
      success: false,
      problems: [{ path: '(file)', message: `nested deeper than ${MAX_JSON_DEPTH} levels` }],
    };
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    return {
      success: false,
      problems: [{ path: '(file)', message: `not valid JSON: ${(error as Error).message}` }],
    };
  }
  const parsed = fileSchema.safeParse(withoutComments(raw));
  if (!parsed.success)
    return {
      success: false,
      problems: describeIssues(parsed.error.issues, knownKeysOf(fileSchema)),
    };

  const problems: HooksConfigProblem[] = [];
  const groups: HookGroup[] = [];
  for (const [name, raw] of Object.entries(parsed.data)) {
    const parsedGroup = parseGroup(name, raw, problems);
    if (!parsedGroup) continue;
    const { dialect, group } = parsedGroup;
    const rules = (event: 'pre_tool_execution' | 'post_tool_execution'): HookRule[] =>
      group[event].map(({ event: key, rule }, index) => {
        const at = group[event].slice(0, index).filter((other) => other.event === key).length;
        const path = formatPath([name, key, at]);
        const compiled = compileMatcher(rule.matcher);
        if (!compiled.ok) problems.push({ path: `${path}.matcher`, message: compiled.message });
        return {
          path,
          event: key,
          matcher: compiled.ok ? compiled.matcher : { source: rule.matcher, matches: () => false },
          handlers: rule.hooks.map((handler): HookHandler =>
            handler.type === 'command'
              ? {
                  type: 'command',
                  command: handler.command,
                  timeoutSeconds: handler.timeout,
                  onError: handler.on_error,
                  prestart: handler.prestart,
                  worker: handler.worker,
                  runAs: handler.run_as,
                }
              : {
                  type: 'http',
                  url: handler.url,
                  headers: handler.headers,
                  timeoutSeconds: handler.timeout,
                  onError: handler.on_error,
                },
          ),
        };
      });
    groups.push({
      name,
      enabled: group.enabled,
      dialect,
      pre_tool_execution: rules('pre_tool_execution'),
      post_tool_execution: rules('post_tool_execution'),
    });
  }
  if (problems.length > 0) return { success: false, problems };
  return { success: true, config: { groups } };
}

/** Throwing parse: a {@link UserError} `invalid_hooks_config` whose message lists each problem. */
export function parseHooksConfig(text: string, fileName = '.agents/hooks.json'): HooksConfig {
  const result = safeParseHooksConfig(text);
  if (result.success) return result.config;
  const lines = result.problems.map((problem) => `${problem.path}: ${problem.message}`);
  throw new UserError('invalid_hooks_config', `${fileName} is invalid:\n  ${lines.join('\n  ')}`, {
    details: { field: result.problems[0]!.path, file: fileName, problems: result.problems },
  });
}

/** No hooks.json means no hooks. */
export const EMPTY_HOOKS_CONFIG: HooksConfig = { groups: [] };
