import { z } from 'zod';
import { UserError } from '../errors/index.js';
import { compileMatcher, type ToolMatcher } from '../hooks/matcher.js';
import { describeIssues, formatPath, knownKeysOf } from './zod-issues.js';

/** What a handler's failure means: `allow` (compatible default) or `deny` (fail closed). */
export type OnError = 'allow' | 'deny';

export interface CommandHandler {
  type: 'command';
  /** Run with `/bin/sh -c` inside the sandbox, as the hook user, cwd `/workspace`. */
  command: string;
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
}

export interface HookGroup {
  name: string;
  enabled: boolean;
  pre_tool_execution: HookRule[];
  post_tool_execution: HookRule[];
}

/** A validated hooks.json: its groups in file order. */
export interface HooksConfig {
  groups: HookGroup[];
}

/** The default handler timeout, in seconds (SPEC §4). */
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

const commandHandlerSchema = z.strictObject({
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

const fileSchema = z.record(z.string(), groupSchema, {
  error: 'hooks.json must be a JSON object of groups',
});

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
  const groups: HookGroup[] = Object.entries(parsed.data).map(([name, group]) => {
    const rules = (event: 'pre_tool_execution' | 'post_tool_execution'): HookRule[] =>
      group[event].map((rule, index) => {
        const path = formatPath([name, event, index]);
        const compiled = compileMatcher(rule.matcher);
        if (!compiled.ok) problems.push({ path: `${path}.matcher`, message: compiled.message });
        return {
          path,
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
    return {
      name,
      enabled: group.enabled,
      pre_tool_execution: rules('pre_tool_execution'),
      post_tool_execution: rules('post_tool_execution'),
    };
  });
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
