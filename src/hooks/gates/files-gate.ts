import type { HooksConfig } from '../../config/hooks-config.js';
import { runPostHooks, type HandlerExecutor, type HookCallContext } from '../hook-engine.js';
import type { ContextStore } from '../controller-hooks/context-store.js';
import type { HookRunner } from '../controller-hooks/runner.js';
import type { HookRecord } from '../../record/types.js';
import { SANDBOX_PATHS } from '../../sandbox/sandbox-options.js';
import { resolveToolCall, toolsOf, type VocabularyId } from '../../tools/registry.js';
import type { ToolCall, JsonObject } from '../../tools/types.js';
import { runGates } from './gate-run.js';

/** What an environment lends its files API to run the gates (docs/environments.md, "Files and the gates"). */
export interface FilesGateHost {
  environmentId: string;
  vocabulary: VocabularyId;
  gates(): HooksConfig;
  executor: HandlerExecutor;
  record(hook: HookRecord): void;
  controllerHooks: HookRunner | undefined;
  store: ContextStore;
}

export interface FilesGateOutcome {
  blocked: boolean;
  reason: string | null;
  hooks: HookRecord[];
}

/**
 * The call a files-API change is shown to the gates as: the vocabulary's own write or delete tool,
 * with the absolute path, so a rule written for the model's tools holds for the API as well.
 * Bytes that are not UTF-8 reach hooks with U+FFFD in their place.
 */
export function gateCallOf(
  vocabulary: VocabularyId,
  change:
    | { kind: 'write'; path: string; data: Uint8Array; overwrite: boolean }
    | {
        kind: 'delete';
        path: string;
      },
): ToolCall {
  const absolute = `/workspace/${change.path}`;
  const has = (name: string) => toolsOf(vocabulary).some((tool) => tool.name === name);
  if (change.kind === 'delete')
    return has('write_to_file')
      ? { name: 'delete_file', args: { TargetFile: absolute } }
      : { name: 'delete_file', args: { path: absolute } };
  const content = Buffer.from(change.data).toString('utf8');
  return has('write_to_file')
    ? {
        name: 'write_to_file',
        args: { TargetFile: absolute, CodeContent: content, Overwrite: change.overwrite },
      }
    : { name: 'write_file', args: { path: absolute, content } };
}

const REWRITE_REASON =
  'a hook rewrote the arguments of a files-API change; the files API writes what was sent or nothing, so the change is refused';

/**
 * Runs the controller hooks and the sandbox's pre hooks for a files-API change, as for a tool call
 * (docs/environments.md, "Files and the gates"). An `ask` with no approver blocks; a rewrite blocks.
 */
export async function gateChange(
  host: FilesGateHost,
  call: ToolCall,
  callId: string,
): Promise<FilesGateOutcome> {
  const hooks: HookRecord[] = [];
  const record = (hook: HookRecord) => {
    hooks.push(hook);
    host.record(hook);
  };
  if (host.controllerHooks) {
    const pre = await host.controllerHooks.beforeToolCall(
      {
        environmentId: host.environmentId,
        interactionId: null,
        callId,
        store: host.store.createChild('call'),
      },
      call,
    );
    pre.records.forEach(record);
    if (pre.blocked) return { blocked: true, reason: pre.reason, hooks };
    if (pre.args !== pre.originalArgs) return { blocked: true, reason: REWRITE_REASON, hooks };
  }
  const resolved = resolveToolCall(call, host.vocabulary);
  const pre = await runGates({
    gates: host.gates(),
    executor: host.executor,
    call,
    resolved,
    vocabulary: host.vocabulary,
    context: contextOf(host, call, callId),
    interactionId: null,
    approver: undefined,
    onRecord: record,
  });
  if (pre.blocked) return { blocked: true, reason: pre.reason, hooks };
  if (pre.call !== call) return { blocked: true, reason: REWRITE_REASON, hooks };
  return { blocked: false, reason: null, hooks };
}

/** The post hooks of a files-API change that ran (their answers cannot undo it; they are recorded). */
export async function afterChange(
  host: FilesGateHost,
  call: ToolCall,
  callId: string,
  result: JsonObject,
): Promise<HookRecord[]> {
  const hooks: HookRecord[] = [];
  const error = typeof result.error === 'string' ? result.error : undefined;
  await runPostHooks(
    host.gates(),
    host.executor,
    call,
    error === undefined ? { result } : { result, error },
    contextOf(host, call, callId),
    (hook) => {
      hooks.push(hook);
      host.record(hook);
    },
  );
  return hooks;
}

function contextOf(host: FilesGateHost, call: ToolCall, callId: string): HookCallContext {
  return {
    environmentId: host.environmentId,
    callId,
    toolName: call.name,
    stateDir: SANDBOX_PATHS.stateDir,
  };
}
