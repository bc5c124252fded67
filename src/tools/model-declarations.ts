import { z } from 'zod';
import { toolsOf, type VocabularyId } from './registry.js';
import type { AnyToolDefinition } from './tool-definition.js';

/** A tool as declared to a model: the shape of a Gemini function declaration (and of OpenAI's `function`). */
export interface ToolDeclaration {
  name: string;
  description: string;
  /** JSON Schema (draft 2020-12) of the arguments, without `$schema`. */
  parameters: Record<string, unknown>;
}

/**
 * JSON Schema of a tool's arguments, from its zod schema (`modelArgs` when the tool advertises fewer
 * arguments than it accepts, e.g. `delete_file` declares `TargetFile` but also accepts `path`).
 * Refinements (EndLine ≥ StartLine, one of `code`/`command`) are not expressible and are left out;
 * `resolveToolCall` still enforces them.
 */
export function toolJsonSchema(tool: AnyToolDefinition): Record<string, unknown> {
  const schema = z.toJSONSchema(tool.modelArgs ?? tool.args, {
    io: 'input',
    unrepresentable: 'any',
  }) as Record<string, unknown>;
  delete schema.$schema;
  return withoutSafeIntegerBounds(schema) as Record<string, unknown>;
}

/** `z.int()` states ±2^53−1 as bounds; they say nothing to a model, so they are left out. */
function withoutSafeIntegerBounds(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutSafeIntegerBounds);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(
        ([key, v]) =>
          !(
            (key === 'maximum' && v === Number.MAX_SAFE_INTEGER) ||
            (key === 'minimum' && v === Number.MIN_SAFE_INTEGER)
          ),
      )
      .map(([key, v]) => [key, withoutSafeIntegerBounds(v)]),
  );
}

/** Every tool of a vocabulary, as model drivers declare them to the model. */
export function toolDeclarations(vocabulary: VocabularyId): ToolDeclaration[] {
  return toolsOf(vocabulary).map((tool) => ({
    name: tool.name,
    description: tool.description,
    parameters: toolJsonSchema(tool),
  }));
}
