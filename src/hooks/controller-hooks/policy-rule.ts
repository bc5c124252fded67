import type { ToolCall } from '../../tools/types.js';
import type { ToolCallHookContext } from './hook-context.js';

/** What a matching rule does with a call. */
export type PolicyEffect = 'allow' | 'deny' | 'askUser';

/**
 * Narrows a rule to some calls of its tools. The call is a frozen copy. A predicate that throws or
 * rejects counts as a matching deny rule of the same specificity: a condition that cannot be
 * evaluated must not let a call through.
 */
export type ToolCallPredicate = (
  call: ToolCall,
  context: ToolCallHookContext,
) => boolean | Promise<boolean>;

/**
 * Asks a person whether the call may run. Only `true` approves; `false`, anything else, a throw or a
 * timeout (see the enforcer's `timeoutMs`) refuses.
 */
export type AskUserHandler = (
  call: ToolCall,
  context: ToolCallHookContext,
) => boolean | Promise<boolean>;

export interface PolicyRuleOptions {
  /**
   * Narrows the rule to the calls for which this returns true.
   * @default every call of the matched tools
   */
  when?: ToolCallPredicate;
  /**
   * For `deny` and `askUser`: the text the model is shown when the call is refused. For `allow`: kept in
   * the record.
   * @default a text naming the policy, the rule and the tool
   */
  reason?: string;
}

/**
 * One policy rule. Build rules with {@link allow}, {@link deny} and {@link askUser}, or write the
 * object out; the enforcer validates both alike.
 */
export interface PolicyRule extends PolicyRuleOptions {
  readonly effect: PolicyEffect;
  /** A tool name (`code_execution`), a prefix ending in `*` (`server/*`), or `*` for every tool. */
  readonly tool: string;
  /** Required for `askUser` rules, refused on any other. */
  readonly askUser?: AskUserHandler;
}

export function allow(tool: string, options: PolicyRuleOptions = {}): PolicyRule {
  return { ...options, effect: 'allow', tool };
}

export function deny(tool: string, options: PolicyRuleOptions = {}): PolicyRule {
  return { ...options, effect: 'deny', tool };
}

export function askUser(
  tool: string,
  handler: AskUserHandler,
  options: PolicyRuleOptions = {},
): PolicyRule {
  return { ...options, effect: 'askUser', tool, askUser: handler };
}

/** How reasons and errors name a rule, for example `deny "code_execution"`. */
export function describeRule(rule: Pick<PolicyRule, 'effect' | 'tool'>): string {
  return `${rule.effect} ${JSON.stringify(rule.tool)}`;
}
