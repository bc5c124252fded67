import type { CommandHandler, HooksConfig } from '../config/hooks-config.js';
import type { HookEvent } from '../record/types.js';

/**
 * Which hook processes the sandbox agent should have started before the next call (docs/gates.md,
 * "Prestart and workers"), and the values they must be started with: the environment a spawn would
 * get, with the next call's id and the tool the next call most likely names.
 */
export interface PrestartRequest {
  key: string;
  command: string;
  worker: boolean;
  /** `"auto"`: hooks.json leaves it to the agent (docs/gates.md, "Prestart and workers"). */
  prestart: boolean | 'auto';
  env: Record<string, string>;
}

/** The names the agent knows each command handler of one set of gates by. */
export function handlerKeys(config: HooksConfig): Map<CommandHandler, string> {
  const keys = new Map<CommandHandler, string>();
  config.groups.forEach((group, groupIndex) => {
    for (const event of ['pre_tool_execution', 'post_tool_execution'] as const) {
      group[event].forEach((rule, ruleIndex) =>
        rule.handlers.forEach((handler, handlerIndex) => {
          if (handler.type === 'command')
            keys.set(handler, `${groupIndex}.${event}.${ruleIndex}.${handlerIndex}`);
        }),
      );
    }
  });
  return keys;
}

export interface PrestartContext {
  environmentId: string;
  stateDir: string;
  /** The id the next call will get. */
  nextCallId: string;
  /** The tool most recently called (undefined: none yet). */
  lastToolName: string | undefined;
  /** The names of the environment's tools. */
  toolNames: readonly string[];
  /** Whether prestarting is on for this environment (workers are asked for either way). */
  prestart: boolean;
}

/** The tool a handler's process is started for: the one its matcher allows, or a guess. */
function expectedTool(
  matches: (toolName: string) => boolean,
  context: PrestartContext,
): string | undefined {
  const allowed = context.toolNames.filter(matches);
  if (allowed.length === 1) return allowed[0];
  if (context.lastToolName !== undefined && matches(context.lastToolName))
    return context.lastToolName;
  return allowed.includes('code_execution') ? 'code_execution' : allowed[0];
}

/** The processes to have ready: every enabled command handler that prestarts or is a worker. */
export function prestartRequests(
  config: HooksConfig,
  keys: Map<CommandHandler, string>,
  context: PrestartContext,
): PrestartRequest[] {
  const out: PrestartRequest[] = [];
  for (const group of config.groups) {
    if (!group.enabled) continue;
    for (const event of ['pre_tool_execution', 'post_tool_execution'] as HookEvent[]) {
      for (const rule of group[event]) {
        for (const handler of rule.handlers) {
          // A handler run as the tool user starts per event (docs/gates.md, "Running workspace code
          // from a hook"): a process waiting as tool would be tool code's to tamper with.
          if (handler.type !== 'command' || handler.runAs === 'tool') continue;
          if (!handler.worker && !(handler.prestart !== false && context.prestart)) continue;
          const toolName = expectedTool(rule.matcher.matches, context);
          if (toolName === undefined) continue;
          out.push({
            key: keys.get(handler)!,
            command: handler.command,
            worker: handler.worker,
            prestart: handler.prestart ?? 'auto',
            env: {
              HOOKBOX_EVENT: event,
              HOOKBOX_TOOL_NAME: toolName,
              HOOKBOX_ENVIRONMENT_ID: context.environmentId,
              HOOKBOX_STATE_DIR: context.stateDir,
              HOOKBOX_CALL_ID: context.nextCallId,
            },
          });
        }
      }
    }
  }
  return out;
}
