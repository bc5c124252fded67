import { UserError } from '../../errors/errors.js';
import type { ConversationTurn, InteractionInput, ModelTool, ToolCallReport } from '../driver.js';

/**
 * A driver's view of the conversation, before it is put in one API's wire format: the user's text,
 * the model's turns (what it said and the calls it made, with what each came to), and the tools.
 */
export type Segment =
  { role: 'user'; text: string } | { role: 'model'; text: string; calls: ToolCallReport[] };

/**
 * The text of a user turn: the string, or the `text` items joined by blank lines (other items, such
 * as the `scripted` agent's calls, mean nothing to a model and are left out). A model needs text to
 * answer, so input without any is the caller's mistake.
 */
export function inputText(input: InteractionInput, agent: string): string {
  const texts =
    typeof input === 'string'
      ? [input]
      : input.flatMap((item) =>
          item.type === 'text' && typeof item.text === 'string' ? [item.text] : [],
        );
  const text = texts.join('\n\n');
  if (text.trim() === '') {
    throw new UserError(
      'invalid_argument',
      `The agent "${agent}" runs a model, which needs text: give input as a string or as items of type "text".`,
      { details: { field: 'input' } },
    );
  }
  return text;
}

/**
 * Earlier turns grouped as the model made them: a model text and the tool calls right after it are
 * one model turn; consecutive user (or model) texts are joined.
 */
export function segmentsOf(history: ConversationTurn[]): Segment[] {
  const segments: Segment[] = [];
  for (const turn of history) {
    const last = segments.at(-1);
    if (turn.role === 'user') {
      if (last?.role === 'user') last.text = `${last.text}\n\n${turn.text}`;
      else segments.push({ role: 'user', text: turn.text });
    } else if (turn.role === 'model') {
      if (last?.role === 'model' && last.calls.length === 0)
        last.text = last.text === '' ? turn.text : `${last.text}\n\n${turn.text}`;
      else segments.push({ role: 'model', text: turn.text, calls: [] });
    } else if (last?.role === 'model') {
      last.calls.push(turn.report);
    } else {
      segments.push({ role: 'model', text: '', calls: [turn.report] });
    }
  }
  return segments;
}

/**
 * A tool's parameter schema as declared to a model: the JSON Schema from zod without its `$schema`
 * keyword, which says nothing to a model and which some endpoints refuse.
 */
export function declaredParameters(tool: ModelTool): Record<string, unknown> {
  const parameters = { ...tool.parameters };
  delete parameters.$schema;
  return parameters;
}
