import type { z } from 'zod';
import { MAX_JSON_DEPTH, valueDepth } from '../config/json-depth.js';
import { closestKey, formatPath } from '../errors/zod-issues.js';
import { UserError } from '../errors/index.js';
import { interactionRequestSchema } from './schema.js';

type SchemaOutput = z.output<typeof interactionRequestSchema>;

/**
 * One input item after {@link normalizeInput}: the SDKs' steps in hookbox's own item types (text,
 * `model_output` history, `code_execution_call`, `tool_call`, `approval`).
 */
export type NormalizedInputItem =
  | { type: 'text'; text: string }
  | { type: 'model_output'; content: { type: 'text'; text: string }[] }
  | { type: 'code_execution_call'; arguments: Record<string, unknown> }
  | { type: 'tool_call'; name: string; arguments: Record<string, unknown> }
  | { type: 'approval'; call_id: string; approve: boolean; reason?: string };

/** A checked request, its input normalized (one item per item given, so indexes still match). */
export type ParsedInteractionRequest = Omit<SchemaOutput, 'input'> & {
  input: string | NormalizedInputItem[];
};

/** One problem with a request: the JSON path at fault and what is wrong. */
export interface RequestProblem {
  field: string;
  message: string;
}

type AnySchema = z.core.$ZodType;

function defOf(schema: AnySchema): z.core.$ZodTypeDef & Record<string, unknown> {
  return schema._zod.def as z.core.$ZodTypeDef & Record<string, unknown>;
}

function unwrap(schema: AnySchema): AnySchema {
  let current = schema;
  for (;;) {
    const def = defOf(current);
    if (['optional', 'nullable', 'default', 'readonly', 'prefault', 'catch'].includes(def.type))
      current = def.innerType as AnySchema;
    else return current;
  }
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The member of a union that `value` is meant to be (by discriminator, or by its JSON type). */
function unionMember(schema: AnySchema, value: unknown): AnySchema | undefined {
  const def = defOf(schema);
  const options = (def.options as AnySchema[]).map(unwrap);
  const discriminator = def.discriminator as string | undefined;
  for (const option of options) {
    const optionDef = defOf(option);
    if (optionDef.type === 'object' && isPlainObject(value)) {
      if (discriminator === undefined) return option;
      const literal = (optionDef.shape as Record<string, AnySchema>)[discriminator];
      const values = literal ? (defOf(unwrap(literal)).values as unknown[] | undefined) : undefined;
      if (values?.includes(value[discriminator])) return option;
    }
    if (optionDef.type === 'array' && Array.isArray(value)) return option;
  }
  return undefined;
}

/** The schema of the object found at `path` in `value`, following unions by the value's shape. */
function objectSchemaAt(
  root: AnySchema,
  value: unknown,
  path: readonly PropertyKey[],
): AnySchema | undefined {
  let schema: AnySchema | undefined = unwrap(root);
  let current = value;
  const step = () => {
    while (schema && defOf(schema).type === 'union') {
      const member = unionMember(schema, current);
      schema = member && unwrap(member);
    }
  };
  step();
  for (const key of path) {
    if (!schema) return undefined;
    const def = defOf(schema);
    if (def.type === 'object') {
      const child = (def.shape as Record<string, AnySchema>)[String(key)];
      schema = child && unwrap(child);
    } else if (def.type === 'array') {
      schema = unwrap(def.element as AnySchema);
    } else return undefined;
    current = (current as Record<PropertyKey, unknown> | undefined)?.[key];
    step();
  }
  return schema && defOf(schema).type === 'object' ? schema : undefined;
}

function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  let current = value;
  for (const key of path) current = (current as Record<PropertyKey, unknown> | undefined)?.[key];
  return current;
}

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

const A_OR_AN = (word: string) => (/^[aeiou]/.test(word) ? `an ${word}` : `a ${word}`);

/** A branch of a union that failed only because the value is not of its JSON type at all. */
function failedAtRoot(issues: readonly z.core.$ZodIssue[]): boolean {
  return issues.every(
    (issue) =>
      issue.path.length === 0 && (issue.code === 'invalid_type' || issue.code === 'invalid_value'),
  );
}

/**
 * One problem per zod issue, with the JSON path and a plain message. A union's failure is traced
 * into the member the value was meant to be; unknown keys name the key and the one they resemble.
 */
export function describeRequestIssues(
  schema: AnySchema,
  input: unknown,
  issues: readonly z.core.$ZodIssue[],
  prefix: readonly PropertyKey[] = [],
): RequestProblem[] {
  const problems: RequestProblem[] = [];
  for (const issue of issues) {
    const path = [...prefix, ...issue.path];
    if (issue.code === 'invalid_union' && valueAt(input, path) === undefined) {
      problems.push({ field: formatPath(path), message: 'is required' });
    } else if (issue.code === 'invalid_union' && issue.errors.length > 0) {
      const meant = issue.errors.filter((branch) => !failedAtRoot(branch));
      if (meant.length === 1) {
        problems.push(...describeRequestIssues(schema, input, meant[0]!, path));
        continue;
      }
      problems.push({ field: formatPath(path), message: issue.message });
    } else if (issue.code === 'unrecognized_keys') {
      const objectSchema = objectSchemaAt(schema, input, path);
      const known = objectSchema
        ? Object.keys(defOf(objectSchema).shape as Record<string, unknown>)
        : [];
      for (const key of issue.keys) {
        const near = closestKey(key, known);
        problems.push({
          field: formatPath([...path, key]),
          message: `unknown field ${JSON.stringify(key)}${near ? ` (did you mean ${JSON.stringify(near)}?)` : ''}${known.length > 0 ? `; known fields: ${known.join(', ')}` : ''}`,
        });
      }
    } else if (issue.code === 'invalid_type') {
      const value = valueAt(input, path);
      problems.push({
        field: formatPath(path),
        message:
          value === undefined
            ? 'is required'
            : `must be ${A_OR_AN(issue.expected === 'record' ? 'object' : issue.expected)} (got ${jsonType(value)})`,
      });
    } else {
      const message = issue.message.replace(/^Invalid input: expected/, 'must be');
      problems.push({ field: formatPath(path), message });
    }
  }
  return problems;
}

/**
 * Validates a request body against `schema` (the API's trust boundary). Throws a
 * {@link UserError} (`invalid_argument`) whose message starts with the JSON path at fault and whose
 * `details.field` is that path; `details.problems` lists every problem found.
 */
export function parseWithSchema<S extends AnySchema>(
  schema: S,
  body: unknown,
  what = 'request',
): z.output<S> {
  const parsed = (schema as unknown as z.ZodType).safeParse(body);
  if (parsed.success) return parsed.data as z.output<S>;
  if (!isPlainObject(body)) {
    throw new UserError('invalid_argument', `body: the ${what} must be a JSON object`, {
      details: { field: 'body' },
    });
  }
  // An unknown field first: it is usually a misspelling, and explains the "is required" beside it.
  const problems = describeRequestIssues(schema, body, parsed.error.issues).sort(
    (a, b) =>
      Number(b.message.startsWith('unknown field')) - Number(a.message.startsWith('unknown field')),
  );
  const first = problems[0] ?? { field: '(top level)', message: 'is not valid' };
  const more = problems.length > 1 ? ` (and ${problems.length - 1} more problem(s))` : '';
  throw new UserError('invalid_argument', `${first.field}: ${first.message}${more}`, {
    details: { field: first.field, problems },
  });
}

/** Validates a `POST /v1beta/interactions` body. */
export function parseInteractionRequest(body: unknown): ParsedInteractionRequest {
  // Measured without recursion before anything recursive (validation, storage) meets the body.
  if (valueDepth(body, MAX_JSON_DEPTH) > MAX_JSON_DEPTH)
    throw new UserError('invalid_argument', `body: nested deeper than ${MAX_JSON_DEPTH} levels`, {
      details: { field: 'body', limit: MAX_JSON_DEPTH },
    });
  const parsed = parseWithSchema(interactionRequestSchema, body);
  if (parsed.background === true && parsed.store === false)
    throw new UserError(
      'invalid_argument',
      'store: a background interaction is kept (it is read with GET); "store": false is for answered interactions only',
      { details: { field: 'store' } },
    );
  return { ...parsed, input: normalizeInput(parsed.input) };
}

const textOfParts = (parts: readonly { text: string }[] | undefined) =>
  (parts ?? []).map((part) => part.text).join('');

/**
 * The SDKs' input forms (docs/gemini-sdks.md) as hookbox's items, one for one: a single text part
 * becomes a list; a `user_input` step its text; a `function_call` a `tool_call`; a
 * `function_result` answering an approval an `approval`. Client call ids are dropped (hookbox
 * gives every call its own).
 */
export function normalizeInput(input: SchemaOutput['input']): string | NormalizedInputItem[] {
  if (typeof input === 'string') return input;
  const items = Array.isArray(input) ? input : [input];
  return items.map((item): NormalizedInputItem => {
    switch (item.type) {
      case 'text':
        return { type: 'text', text: item.text };
      case 'user_input':
        return { type: 'text', text: textOfParts(item.content) };
      case 'model_output':
        return {
          type: 'model_output',
          content: (item.content ?? []).map((part) => ({ type: 'text', text: part.text })),
        };
      case 'code_execution_call':
        return { type: 'code_execution_call', arguments: item.arguments };
      case 'function_call':
      case 'tool_call':
        return { type: 'tool_call', name: item.name, arguments: item.arguments };
      case 'approval':
        return item;
      case 'function_result':
        return {
          type: 'approval',
          call_id: item.call_id,
          approve: item.result.approve,
          ...(item.result.reason === undefined ? {} : { reason: item.result.reason }),
        };
    }
  });
}
