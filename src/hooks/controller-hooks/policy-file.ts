import { readFile } from 'node:fs/promises';
import { basename, extname } from 'node:path';
import { parseDocument } from 'yaml';
import { z } from 'zod';
import { UserError } from '../../errors/errors.js';
import { closestName } from './closest-name.js';
import { compileCondition, re2SyntaxError, type PolicyCondition } from './policy-condition.js';
import { PolicyEnforcer } from './policy-enforcer.js';
import { allow, askUser, deny, type AskUserHandler, type PolicyRule } from './policy-rule.js';
import { parseToolPattern } from './tool-pattern.js';
import { workspaceOnly } from './workspace-only.js';

/*
 * A policy file is operator data from disk: the one place where policies cross a trust boundary, so
 * the one place they are checked with zod. Everything after the schema works on validated values.
 */

export interface PolicyFileOptions {
  /**
   * Asks for approval for the file's `ask_user` rules. A file cannot carry a handler, so without one a
   * file with an `ask_user` rule is refused at load rather than denying (or allowing) at call time.
   * @default none
   */
  askUser?: AskUserHandler;
  /**
   * How long one decision may take, asking included.
   * @default the runner's `hookTimeoutMs`
   */
  timeoutMs?: number;
}

export type SafeParsePolicyFileResult =
  { success: true; data: PolicyEnforcer } | { success: false; error: UserError };

const CONDITION_OPERATORS = ['matches', 'equals', 'all', 'any', 'not'] as const;

const conditionSchema = z
  .strictObject({
    arg: z.string().min(1).optional(),
    matches: z.string().optional(),
    equals: z.union([z.string(), z.number(), z.boolean(), z.null()]).optional(),
    get all() {
      return z.array(conditionSchema).min(1).optional();
    },
    get any() {
      return z.array(conditionSchema).min(1).optional();
    },
    get not() {
      return conditionSchema.optional();
    },
  })
  .superRefine((condition, context) => {
    const operators = CONDITION_OPERATORS.filter((operator) => operator in condition);
    if (operators.length !== 1) {
      context.addIssue({
        code: 'custom',
        message: `a condition needs exactly one of ${CONDITION_OPERATORS.join(', ')}; got ${operators.length === 0 ? 'none' : operators.join(', ')}`,
      });
      return;
    }
    const operator = operators[0];
    const comparesArgument = operator === 'matches' || operator === 'equals';
    if (comparesArgument && condition.arg === undefined) {
      context.addIssue({
        code: 'custom',
        path: ['arg'],
        message: `"${operator}" needs the "arg" it applies to`,
      });
    }
    if (!comparesArgument && condition.arg !== undefined) {
      context.addIssue({
        code: 'custom',
        path: ['arg'],
        message: `"arg" does not go with "${operator}"`,
      });
    }
    if (condition.matches !== undefined) {
      const syntaxError = re2SyntaxError(condition.matches);
      if (syntaxError !== null) {
        context.addIssue({
          code: 'custom',
          path: ['matches'],
          message: `not a valid RE2 pattern: ${syntaxError}`,
        });
      }
    }
  });

const ruleSchema = z.strictObject({
  effect: z.enum(['allow', 'deny', 'ask_user']),
  tool: z.string().superRefine((tool, context) => {
    try {
      parseToolPattern(tool, 'tool');
    } catch (error) {
      context.addIssue({
        code: 'custom',
        message: (error as Error).message.replace(/^tool: /, ''),
      });
    }
  }),
  when: conditionSchema.optional(),
  reason: z.string().trim().min(1).optional(),
});

const policyFileSchema = z
  .strictObject({
    name: z.string().trim().min(1).optional(),
    workspace_only: z.array(z.string().min(1)).min(1).optional(),
    rules: z.array(ruleSchema).optional(),
  })
  .superRefine((file, context) => {
    if (
      file.workspace_only === undefined &&
      (file.rules === undefined || file.rules.length === 0)
    ) {
      // An empty policy is almost always a mistake, and would silently enforce nothing.
      context.addIssue({
        code: 'custom',
        message: 'a policy file needs at least one rule or "workspace_only"',
      });
    }
  });

type PolicyFileData = z.infer<typeof policyFileSchema>;
type RuleData = z.infer<typeof ruleSchema>;

const KNOWN_KEYS = {
  file: Object.keys(policyFileSchema.shape),
  rule: Object.keys(ruleSchema.shape),
  condition: Object.keys(conditionSchema.shape),
};

/**
 * Reads a policy file (JSON for `.json`, YAML for `.yaml` and `.yml`) into an enforcer.
 * @param fileName names the file in errors and, unless the file has a `name`, the enforcer.
 * @throws UserError (`invalid_argument`) naming the file, the JSON path, the rule and what is wrong.
 */
export function parsePolicyFile(
  text: string,
  fileName: string,
  options: PolicyFileOptions = {},
): PolicyEnforcer {
  const document = withoutComments(parseText(text, fileName));
  const parsed = policyFileSchema.safeParse(document);
  if (!parsed.success) {
    const problems = parsed.error.issues.flatMap((issue) => describeIssue(issue, document));
    throw policyError(fileName, problems);
  }
  return toEnforcer(parsed.data, fileName, options);
}

/** {@link parsePolicyFile} without throwing: every problem comes back as the error. */
export function safeParsePolicyFile(
  text: string,
  fileName: string,
  options: PolicyFileOptions = {},
): SafeParsePolicyFileResult {
  try {
    return { success: true, data: parsePolicyFile(text, fileName, options) };
  } catch (error) {
    if (error instanceof UserError) return { success: false, error };
    throw error;
  }
}

/** Reads and parses the policy file at `path`, for `hookbox serve --policy FILE`. */
export async function loadPolicyFile(
  path: string,
  options: PolicyFileOptions = {},
): Promise<PolicyEnforcer> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new UserError(
      'invalid_argument',
      `cannot read policy file ${path}: ${(error as Error).message}`,
      {
        details: { field: 'policy', file: path },
        cause: error,
      },
    );
  }
  return parsePolicyFile(text, path, options);
}

function parseText(text: string, fileName: string): unknown {
  const extension = extname(fileName).toLowerCase();
  if (extension === '.json') {
    try {
      return JSON.parse(text) as unknown;
    } catch (error) {
      throw policyError(fileName, [
        { path: '$', message: `not valid JSON: ${(error as Error).message}` },
      ]);
    }
  }
  if (extension === '.yaml' || extension === '.yml') {
    const document = parseDocument(text, { prettyErrors: true, uniqueKeys: true });
    const [firstError] = document.errors;
    if (firstError !== undefined) {
      throw policyError(fileName, [
        { path: '$', message: `not valid YAML: ${firstError.message}` },
      ]);
    }
    return document.toJS() as unknown;
  }
  throw policyError(fileName, [
    { path: '$', message: 'a policy file must end in .json, .yaml or .yml' },
  ]);
}

/** Drops keys that start with `_` at every level: comments, as in hooks.json (docs/contract.md §4). */
function withoutComments(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutComments);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => !key.startsWith('_'))
      .map(([key, child]) => [key, withoutComments(child)]),
  );
}

function toEnforcer(
  file: PolicyFileData,
  fileName: string,
  options: PolicyFileOptions,
): PolicyEnforcer {
  const rules: PolicyRule[] = (file.rules ?? []).map((rule, index) =>
    toRule(rule, index, fileName, options),
  );
  const enforcerOptions = {
    name: file.name ?? basename(fileName),
    rules:
      file.workspace_only === undefined ? rules : [...workspaceOnly(file.workspace_only), ...rules],
  };
  return new PolicyEnforcer(
    options.timeoutMs === undefined
      ? enforcerOptions
      : { ...enforcerOptions, timeoutMs: options.timeoutMs },
  );
}

function toRule(
  rule: RuleData,
  index: number,
  fileName: string,
  options: PolicyFileOptions,
): PolicyRule {
  // The schema's refinement lets exactly one operator through, which is what PolicyCondition says.
  const ruleOptions = {
    ...(rule.when === undefined ? {} : { when: compileCondition(rule.when as PolicyCondition) }),
    ...(rule.reason === undefined ? {} : { reason: rule.reason }),
  };
  switch (rule.effect) {
    case 'allow':
      return allow(rule.tool, ruleOptions);
    case 'deny':
      return deny(rule.tool, ruleOptions);
    case 'ask_user':
      if (options.askUser === undefined) {
        throw policyError(fileName, [
          {
            path: `$.rules[${index}].effect`,
            message: `${ruleLabel(rule)}: "ask_user" needs an approval handler, which a policy file cannot carry; this hookbox was started without one, so use "deny" or "allow" instead`,
          },
        ]);
      }
      return askUser(rule.tool, options.askUser, ruleOptions);
  }
}

interface Problem {
  /** A JSON path such as `$.rules[2].when.matches`. */
  path: string;
  message: string;
}

function describeIssue(issue: z.core.$ZodIssue, document: unknown): Problem[] {
  const path = jsonPath(issue.path);
  const rule = ruleAt(issue.path, document);
  const prefix = rule === undefined ? '' : `${rule}: `;
  if (issue.code === 'unrecognized_keys') {
    const known = KNOWN_KEYS[objectKindAt(issue.path)];
    return issue.keys.map((key) => {
      const suggestion = closestName(key, known);
      return {
        path,
        message: `${prefix}unknown key "${key}"${suggestion === undefined ? '' : ` (did you mean "${suggestion}"?)`}`,
      };
    });
  }
  const missing =
    issue.code !== 'custom' && issue.path.length > 0 && !hasPath(document, issue.path);
  return [{ path, message: `${prefix}${missing ? 'is required' : issue.message}` }];
}

function hasPath(document: unknown, path: readonly PropertyKey[]): boolean {
  let value = document;
  for (const segment of path) {
    if (typeof value !== 'object' || value === null || !Object.hasOwn(value, segment)) return false;
    value = (value as Record<PropertyKey, unknown>)[segment];
  }
  return true;
}

/** Which object of the format an issue's path points into, to know its keys. */
function objectKindAt(path: readonly PropertyKey[]): keyof typeof KNOWN_KEYS {
  if (path.length === 0) return 'file';
  if (path.length === 2 && path[0] === 'rules') return 'rule';
  return 'condition';
}

/** Names the rule an issue is in, for example `the deny rule for "code_execution"`, from the raw document. */
function ruleAt(path: readonly PropertyKey[], document: unknown): string | undefined {
  if (path[0] !== 'rules' || typeof path[1] !== 'number') return undefined;
  const rules = (document as { rules?: unknown }).rules;
  const rule: unknown = Array.isArray(rules) ? rules[path[1]] : undefined;
  const fields = typeof rule === 'object' && rule !== null ? (rule as Record<string, unknown>) : {};
  return ruleLabel({ effect: fields['effect'], tool: fields['tool'] }, path[1]);
}

function ruleLabel(rule: { effect: unknown; tool: unknown }, index?: number): string {
  const effect = typeof rule.effect === 'string' ? rule.effect : undefined;
  const tool = typeof rule.tool === 'string' ? JSON.stringify(rule.tool) : undefined;
  if (effect !== undefined && tool !== undefined) return `the ${effect} rule for ${tool}`;
  return index === undefined ? 'this rule' : `rule ${index + 1}`;
}

function jsonPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>(
    (text, segment) =>
      typeof segment === 'number'
        ? `${text}[${segment}]`
        : /^[A-Za-z_][A-Za-z0-9_]*$/.test(String(segment))
          ? `${text}.${String(segment)}`
          : `${text}[${JSON.stringify(String(segment))}]`,
    '$',
  );
}

function policyError(fileName: string, problems: readonly Problem[]): UserError {
  const lines = problems.map((problem) => `${problem.path}: ${problem.message}`);
  return new UserError('invalid_argument', `policy file ${fileName}: ${lines.join('; ')}`, {
    details: { field: problems[0]?.path ?? '$', file: fileName, problems },
  });
}
