import { UserError } from '../../errors/errors.js';
import type { ToolCall } from '../../tools/types.js';
import type { ToolCallHookContext } from './hook-context.js';
import type { BeforeToolCallResult, Hook, HookEventName } from './hook.js';
import { describeError } from './invoke-hook.js';
import { describeRule, type PolicyEffect, type PolicyRule } from './policy-rule.js';
import {
  parseToolPattern,
  patternMatches,
  specificityOf,
  type ToolPattern,
} from './tool-pattern.js';

export interface PolicyEnforcerOptions {
  /**
   * Names the enforcer in records and refusal reasons; unique among a runner's hooks.
   * @default 'policy'
   */
  name?: string;
  /** The rules, in any order: precedence comes from specificity and effect, not position. Nested lists (from helpers such as `workspaceOnly`) are flattened. */
  rules: readonly (PolicyRule | readonly PolicyRule[])[];
  /**
   * How long one decision may take, asking a person included, before the call is refused.
   * @default the runner's `hookTimeoutMs`
   */
  timeoutMs?: number;
}

/** What the enforcer decided for one call. `none`: no rule matched, so the enforcer has no opinion. */
export type PolicyDecision =
  | {
      readonly effect: 'allow' | 'deny';
      readonly reason: string;
      readonly rule: PolicyRule;
      readonly field: string;
    }
  | { readonly effect: 'none' };

interface CompiledRule {
  readonly rule: PolicyRule;
  /** Where the rule sits in the options, for example `rules[2]` or `rules[0][3]`. */
  readonly field: string;
  readonly pattern: ToolPattern;
  readonly specificity: number;
}

const EFFECTS: readonly PolicyEffect[] = ['allow', 'deny', 'askUser'];

/**
 * A hook that allows, denies or asks about tool calls by rules. For a call, the rules for its tool are
 * taken in buckets from the most specific (exact name, then prefixes from longest to shortest, then
 * `*`); the first bucket in which some rule matches decides, and inside it deny beats askUser beats
 * allow. When no rule matches, the enforcer has no opinion and the call goes on (to the next hook,
 * then to the sandbox gates): no match means allow.
 */
export class PolicyEnforcer implements Hook {
  readonly name: string;
  readonly kind = 'policy';
  readonly events: readonly HookEventName[] = ['before_tool_call'];
  readonly timeoutMs?: number;
  readonly rules: readonly PolicyRule[];
  private readonly compiledRules: readonly CompiledRule[];

  constructor(options: PolicyEnforcerOptions) {
    this.name = options.name ?? 'policy';
    if (typeof this.name !== 'string' || this.name.trim() === '') {
      throw invalid('name', 'must be a non-empty string');
    }
    if (options.timeoutMs !== undefined) this.timeoutMs = options.timeoutMs;
    if (!Array.isArray(options.rules)) throw invalid('rules', 'must be a list of rules');
    this.compiledRules = options.rules.flatMap((entry, index) =>
      Array.isArray(entry)
        ? entry.map((rule: unknown, innerIndex) =>
            compileRule(rule, `rules[${index}][${innerIndex}]`),
          )
        : [compileRule(entry, `rules[${index}]`)],
    );
    this.rules = Object.freeze(this.compiledRules.map((compiled) => compiled.rule));
  }

  async beforeToolCall(
    context: ToolCallHookContext,
    call: ToolCall,
  ): Promise<BeforeToolCallResult> {
    const decision = await this.decide(call, context);
    if (decision.effect === 'none') return undefined;
    return { decision: decision.effect, reason: decision.reason };
  }

  /** The decision for one call, with the rule that made it. */
  async decide(call: ToolCall, context: ToolCallHookContext): Promise<PolicyDecision> {
    const matchingTool = this.compiledRules.filter((compiled) =>
      patternMatches(compiled.pattern, call.name),
    );
    const specificities = [...new Set(matchingTool.map((compiled) => compiled.specificity))].sort(
      (a, b) => b - a,
    );
    for (const specificity of specificities) {
      const bucket = matchingTool.filter((compiled) => compiled.specificity === specificity);
      const decision = await this.decideInBucket(bucket, call, context);
      if (decision.effect !== 'none') return decision;
    }
    return { effect: 'none' };
  }

  /**
   * Evaluates every condition of the bucket before acting, so that a throwing condition (a deny) is
   * known before anyone is asked.
   */
  private async decideInBucket(
    bucket: readonly CompiledRule[],
    call: ToolCall,
    context: ToolCallHookContext,
  ): Promise<PolicyDecision> {
    const matched: CompiledRule[] = [];
    for (const compiled of bucket) {
      try {
        if (compiled.rule.when === undefined || (await compiled.rule.when(call, context)))
          matched.push(compiled);
      } catch (error) {
        return this.denial(
          compiled,
          `tool "${call.name}" is denied by policy "${this.name}": the condition of ${this.label(compiled)} failed: ${describeError(error)}`,
          true,
        );
      }
    }
    const denyRule = matched.find((compiled) => compiled.rule.effect === 'deny');
    if (denyRule !== undefined) {
      return this.denial(
        denyRule,
        `tool "${call.name}" is denied by policy "${this.name}" (${this.label(denyRule)})`,
      );
    }
    const askRule = matched.find((compiled) => compiled.rule.effect === 'askUser');
    if (askRule !== undefined) return this.ask(askRule, call, context);
    const allowRule = matched.find((compiled) => compiled.rule.effect === 'allow');
    if (allowRule !== undefined) {
      return {
        effect: 'allow',
        reason:
          allowRule.rule.reason ?? `allowed by policy "${this.name}" (${this.label(allowRule)})`,
        rule: allowRule.rule,
        field: allowRule.field,
      };
    }
    return { effect: 'none' };
  }

  private async ask(
    compiled: CompiledRule,
    call: ToolCall,
    context: ToolCallHookContext,
  ): Promise<PolicyDecision> {
    let approved: unknown;
    try {
      // Validated at construction: an askUser rule always has its handler.
      approved = await compiled.rule.askUser!(call, context);
    } catch (error) {
      return this.denial(
        compiled,
        `tool "${call.name}" is denied by policy "${this.name}": asking for approval (${this.label(compiled)}) failed: ${describeError(error)}`,
        true,
      );
    }
    if (approved === true) {
      return {
        effect: 'allow',
        reason: `approved when asked (policy "${this.name}", ${this.label(compiled)})`,
        rule: compiled.rule,
        field: compiled.field,
      };
    }
    return this.denial(
      compiled,
      `tool "${call.name}" was not approved (policy "${this.name}", ${this.label(compiled)})`,
    );
  }

  /** @param failure when set, the default reason wins over the rule's own: the rule did not decide as written. */
  private denial(compiled: CompiledRule, defaultReason: string, failure = false): PolicyDecision {
    const reason = failure ? defaultReason : (compiled.rule.reason ?? defaultReason);
    return { effect: 'deny', reason, rule: compiled.rule, field: compiled.field };
  }

  private label(compiled: CompiledRule): string {
    return `${compiled.field}: ${describeRule(compiled.rule)}`;
  }
}

function compileRule(candidate: unknown, field: string): CompiledRule {
  if (typeof candidate !== 'object' || candidate === null)
    throw invalid(field, 'a rule must be an object');
  const rule = candidate as PolicyRule;
  if (!EFFECTS.includes(rule.effect)) {
    throw invalid(
      `${field}.effect`,
      `must be one of ${EFFECTS.join(', ')}, got ${JSON.stringify(rule.effect)}`,
    );
  }
  const pattern = parseToolPattern(rule.tool, `${field}.tool`);
  if (rule.when !== undefined && typeof rule.when !== 'function') {
    throw invalid(`${field}.when`, 'must be a function of the tool call');
  }
  if (rule.reason !== undefined && (typeof rule.reason !== 'string' || rule.reason.trim() === '')) {
    throw invalid(`${field}.reason`, 'must be a non-empty string');
  }
  if (rule.effect === 'askUser' && typeof rule.askUser !== 'function') {
    throw invalid(
      `${field}.askUser`,
      `the rule ${describeRule(rule)} needs a handler that asks for approval`,
    );
  }
  if (rule.effect !== 'askUser' && rule.askUser !== undefined) {
    throw invalid(
      `${field}.askUser`,
      `the rule ${describeRule(rule)} would never ask; only askUser rules take a handler`,
    );
  }
  return { rule: Object.freeze({ ...rule }), field, pattern, specificity: specificityOf(pattern) };
}

function invalid(field: string, message: string): UserError {
  return new UserError('invalid_argument', `${field}: ${message}`, { details: { field } });
}
