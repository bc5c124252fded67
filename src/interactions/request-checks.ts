/** Checks of an interaction request made before anything is made: tools, sources' gates, input, its target environment. */
import { z } from 'zod';
import type { PlacedSource, InlineSource } from '../config/sources.js';
import { hooksConfigOf } from '../hooks/hooks-config-of.js';
import { UserError } from '../errors/index.js';
import type { Allowlist } from '../network/allowlist.js';
import { toolsOf, type VocabularyId } from '../tools/registry.js';
import type { ModelDriver, ModelTool } from './driver.js';
import type { ParsedInteractionRequest } from './request.js';
import { SUPPORTED_TOOL_TYPES, type EnvironmentConfig, type Interaction } from './schema.js';
import { userTextOf } from './steps.js';

export type Target =
  | { kind: 'new'; config?: EnvironmentConfig }
  | { kind: 'existing'; id: string; field: string; config?: EnvironmentConfig };

/** JSON Schema of a tool's arguments, as a model sees it. */
export function modelToolsOf(vocabulary: VocabularyId, enabled: readonly string[]): ModelTool[] {
  return toolsOf(vocabulary)
    .filter((tool) => enabled.includes(tool.name))
    .map((tool) => {
      const parameters: Record<string, unknown> = z.toJSONSchema(tool.args, { io: 'input' });
      delete parameters.$schema;
      return { name: tool.name, description: tool.description, parameters };
    });
}

/** The tools an interaction may call: the file tools always, `code_execution` when enabled. */
export function enabledToolsOf(
  tools: ParsedInteractionRequest['tools'],
  vocabulary: VocabularyId,
): string[] {
  const all = toolsOf(vocabulary).map((tool) => tool.name);
  if (tools === undefined) return all;
  tools.forEach((tool, index) => {
    if (!(SUPPORTED_TOOL_TYPES as readonly string[]).includes(tool.type)) {
      throw new UserError(
        'unsupported',
        `tools[${index}].type: ${JSON.stringify(tool.type)} is not available in hookbox; the tool types it offers are ${SUPPORTED_TOOL_TYPES.map((t) => JSON.stringify(t)).join(', ')} (the file tools come with every environment)`,
        { details: { field: `tools[${index}].type` } },
      );
    }
  });
  const listed = new Set(tools.map((tool) => tool.type));
  return all.filter((name) => name !== 'code_execution' || listed.has('code_execution'));
}

/** Prefixes a sources error with where the sources sit in the request. */
export function atSources(error: unknown, prefix: string): unknown {
  if (!(error instanceof UserError)) return error;
  const field = error.details.field;
  const rewrite = (text: string) => text.replace(/^sources(?=[[.:]|$)/, `${prefix}.sources`);
  return new UserError(error.code, rewrite(error.message), {
    details: { ...error.details, ...(field ? { field: rewrite(field) } : {}) },
  });
}

/** Checks the gates of a request's sources before anything is made; errors name the source. */
export function checkGates(
  placed: PlacedSource[],
  sources: InlineSource[],
  prefix: string,
  allowlist?: Allowlist,
): void {
  try {
    hooksConfigOf(placed, allowlist);
  } catch (error) {
    if (!(error instanceof UserError)) throw error;
    const index = placed.findIndex((s) => s.area === 'agents' && s.path === 'hooks.json');
    const at = `${prefix}.sources[${index}].content`;
    throw new UserError(error.code, `${at} (${sources[index]?.target}): ${error.message}`, {
      details: { ...error.details, field: at, hooks_path: error.details.field },
    });
  }
}

/** Where a request runs: a new environment, or an existing one (named, or its predecessor's). */
export function targetOf(
  request: ParsedInteractionRequest,
  previous: Interaction | undefined,
): Target {
  const spec = request.environment;
  let target: Target;
  if (spec === undefined) {
    if (!previous) {
      throw new UserError(
        'invalid_argument',
        'environment: is required: "remote" for a new environment, an environment id, or {"type": "remote", "sources": [...]} (it may be left out only with previous_interaction_id)',
        { details: { field: 'environment' } },
      );
    }
    return { kind: 'existing', id: previous.environment_id, field: 'previous_interaction_id' };
  }
  if (typeof spec === 'string') {
    target =
      spec === 'remote' ? { kind: 'new' } : { kind: 'existing', id: spec, field: 'environment' };
  } else if (spec.environment_id !== undefined) {
    target = {
      kind: 'existing',
      id: spec.environment_id,
      field: 'environment.environment_id',
      config: spec,
    };
  } else {
    target = { kind: 'new', config: spec };
  }
  if (previous && (target.kind === 'new' || target.id !== previous.environment_id)) {
    const field = target.kind === 'new' ? 'environment' : target.field;
    throw new UserError(
      'invalid_argument',
      `${field}: previous_interaction_id ${previous.id} continues in its environment ${previous.environment_id}; give "environment": ${JSON.stringify(previous.environment_id)} or leave "environment" out`,
      { details: { field } },
    );
  }
  return target;
}

/** A driver that runs a model needs text; only the "scripted" agent runs input calls. */
export function checkAgentInput(driver: ModelDriver, request: ParsedInteractionRequest): void {
  if (!driver.executesInputCalls && Array.isArray(request.input)) {
    const index = request.input.findIndex(
      (item) => item.type !== 'text' && item.type !== 'approval' && item.type !== 'model_output',
    );
    if (index >= 0) {
      throw new UserError(
        'invalid_argument',
        `input[${index}].type: ${JSON.stringify(request.input[index]!.type)} items are run only by the "scripted" agent; ${JSON.stringify(request.agent)} takes text`,
        { details: { field: `input[${index}].type` } },
      );
    }
  }
  const answersApprovals =
    Array.isArray(request.input) && request.input.some((item) => item.type === 'approval');
  if (
    !driver.executesInputCalls &&
    !answersApprovals &&
    userTextOf(request.input as string | Record<string, unknown>[]).every(
      (part) => part.text.trim() === '',
    )
  ) {
    throw new UserError(
      'invalid_argument',
      `input: the agent ${JSON.stringify(request.agent)} runs a model, which needs text: give input as a string or as items of type "text"`,
      { details: { field: 'input' } },
    );
  }
}

/**
 * Refuses what only a new environment takes (`sandbox`, `network`, `template`, `env`): an existing
 * environment keeps what it was made with.
 */
export function refuseForExisting(prefix: string, key: string, what: string): never {
  throw new UserError(
    'invalid_argument',
    `${prefix}.${key}: an existing environment keeps the ${what} it was made with; give ${key} only when making one`,
    { details: { field: `${prefix}.${key}` } },
  );
}
