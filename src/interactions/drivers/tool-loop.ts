import { SystemError, UserError, type UserErrorCode } from '../../errors/errors.js';
import type { DriverContext } from '../driver.js';
import { throwIfCancelled } from './http-json.js';

/** A call the model asked for: its arguments, or why they could not be read. */
export type RequestedCall =
  { name: string; args: Record<string, unknown> } | { name: string; argsError: string };

/** One model turn: what it said (may be empty) and the calls it asked for, in order. */
export interface ModelTurn {
  text: string;
  calls: RequestedCall[];
}

/** What a call came to, as the model is to be told: an error (blocked, failed, bad call) or not. */
export interface CallOutcome {
  isError: boolean;
  text: string;
}

/** One API's side of the loop: it keeps the conversation in its own wire format. */
export interface ModelSession {
  /** Sends the conversation so far; records the model's answer in it and returns it. */
  next(): Promise<ModelTurn>;
  /** Records what each call of the last turn came to, in the order of its calls. */
  answer(outcomes: CallOutcome[]): void;
}

/**
 * Errors of `callTool` that are the model's doing (an unknown tool, arguments the tool's schema
 * refuses): the model is told, as an error result, and may try again. Anything else ends the loop.
 */
const MODEL_MISTAKES: ReadonlySet<UserErrorCode> = new Set([
  'invalid_tool_call',
  'invalid_argument',
]);

/**
 * The loop every model driver runs: ask the model; say what it said (`emitModelOutput`); run each
 * call it asked for through `callTool`, in order, and feed the outcomes back; repeat. It stops when
 * a model turn asks for no call, and throws when the interaction is cancelled, on an API error, or
 * when turn `maxSteps` still asks for calls (those calls do not run: nobody would see the results).
 */
export async function runToolLoop(
  context: DriverContext,
  session: ModelSession,
  label: string,
): Promise<void> {
  for (let turn = 1; ; turn++) {
    throwIfCancelled(context.signal);
    const reply = await session.next();
    if (reply.text.trim() !== '') context.emitModelOutput(reply.text);
    if (reply.calls.length === 0) return;
    if (turn >= context.maxSteps) throw stepLimitError(label, context.maxSteps, reply.calls);
    const outcomes: CallOutcome[] = [];
    for (const call of reply.calls) {
      throwIfCancelled(context.signal);
      outcomes.push(await runCall(context, call));
    }
    session.answer(outcomes);
  }
}

async function runCall(context: DriverContext, call: RequestedCall): Promise<CallOutcome> {
  if ('argsError' in call) return { isError: true, text: call.argsError };
  try {
    const report = await context.callTool({ name: call.name, args: call.args });
    return { isError: report.is_error, text: report.text_for_model };
  } catch (error) {
    if (error instanceof UserError && MODEL_MISTAKES.has(error.code))
      return { isError: true, text: error.message };
    throw error;
  }
}

function stepLimitError(label: string, maxSteps: number, pending: RequestedCall[]): SystemError {
  const names = pending.map((call) => call.name).join(', ');
  return new SystemError(
    'internal',
    `${label} reached the step limit of ${maxSteps} model turns without a final answer; ` +
      `its last turn asked for ${names}, which did not run.`,
    { details: { reason: 'step_limit', max_steps: maxSteps, pending_calls: names } },
  );
}
