import { z } from 'zod';
import { UserError, SystemError } from '../../errors/errors.js';
import type { DriverContext } from '../driver.js';
import { declaredParameters, inputText, segmentsOf, type Segment } from './conversation.js';
import {
  failureMessage,
  parseAnswer,
  excerpt,
  failureHint,
  failureKindOf,
  type ApiFailure,
  type FailureKind,
} from './http-json.js';
import { HttpModelDriver, type HttpDriverOptions } from './http-driver.js';
import {
  runToolLoop,
  type CallOutcome,
  type ModelSession,
  type ModelTurn,
  type RequestedCall,
} from './tool-loop.js';

export interface OpenAIDriverOptions extends HttpDriverOptions {
  /** The model, as the endpoint names it (`qwen2.5:7b`, `gpt-4.1-mini`, …); the `<model>` of an
   * `openai:<model>` agent name. @default env HOOKBOX_OPENAI_MODEL */
  model?: string;
  /** The endpoint up to `/chat/completions`, e.g. `http://localhost:11434/v1` (a local Ollama).
   * Required. @default env HOOKBOX_OPENAI_BASE_URL */
  baseUrl?: string;
  /** Sent as `Authorization: Bearer <key>`; none is sent without a key.
   * @default env HOOKBOX_OPENAI_API_KEY */
  apiKey?: string;
  /** Where the defaults above are read. @default process.env */
  env?: Record<string, string | undefined>;
}

type ChatMessage =
  | { role: 'system' | 'user'; content: string }
  | { role: 'assistant'; content: string | null; tool_calls?: WireToolCall[] }
  | { role: 'tool'; tool_call_id: string; content: string };

interface WireToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

const ResponseToolCall = z.looseObject({
  id: z.string().nullish(),
  function: z.looseObject({
    name: z.string(),
    // A string of JSON on the wire; a few servers send the object itself.
    arguments: z.union([z.string(), z.record(z.string(), z.unknown())]).nullish(),
  }),
});
const ChatCompletion = z.looseObject({
  choices: z
    .array(
      z.looseObject({
        message: z.looseObject({
          content: z
            .union([z.string(), z.array(z.looseObject({ text: z.string().optional() }))])
            .nullish(),
          tool_calls: z.array(ResponseToolCall).nullish(),
        }),
        finish_reason: z.string().nullish(),
      }),
    )
    .min(1, { error: 'no choices' }),
  // The tokens of this request: summed into the interaction's `usage` (docs/gemini-sdks.md).
  usage: z
    .looseObject({ prompt_tokens: z.number().optional(), completion_tokens: z.number().optional() })
    .nullish(),
});

/**
 * Any OpenAI-compatible chat-completions endpoint with tools (a local Ollama, vLLM or llama.cpp
 * server, or a hosted one). Tool results go back as `tool` messages: the result's JSON, or
 * `{"error": "<text>"}` for a blocked or failed call. Arguments that are not a JSON object are not
 * run; the model is told so in the call's `tool` message and may try again.
 */
export class OpenAIDriver extends HttpModelDriver {
  readonly name = 'openai';

  constructor(options: OpenAIDriverOptions = {}) {
    const env = options.env ?? process.env;
    const model = options.model ?? env.HOOKBOX_OPENAI_MODEL ?? '';
    super(
      {
        model,
        baseUrl: options.baseUrl ?? env.HOOKBOX_OPENAI_BASE_URL ?? '',
        apiKey: options.apiKey ?? (env.HOOKBOX_OPENAI_API_KEY || undefined),
        modelForHints: `"${model}"${options.model === undefined ? ' (HOOKBOX_OPENAI_MODEL)' : ''}`,
      },
      options,
    );
  }

  async run(context: DriverContext): Promise<void> {
    if (this.baseUrl === '') {
      throw new SystemError(
        'internal',
        `The agent "${context.agent}" runs on an OpenAI-compatible endpoint, which needs its URL: ` +
          'set HOOKBOX_OPENAI_BASE_URL where hookbox runs (e.g. http://localhost:11434/v1 for Ollama).',
        { details: { api: 'chat-completions API' } },
      );
    }
    if (this.model === '') {
      throw new UserError(
        'invalid_argument',
        `The agent "${context.agent}" names no model: use "openai:<model>", e.g. "openai:qwen2.5:7b".`,
        { details: { field: 'agent' } },
      );
    }
    const session = new OpenAISession(this.model, (body) => this.postChat(body, context), context);
    await runToolLoop(context, session, `The model ${this.model} at ${this.baseUrl}`);
  }

  private postChat(body: unknown, context: DriverContext): Promise<unknown> {
    return this.post(
      {
        api: 'chat-completions API',
        url: `${this.baseUrl}/chat/completions`,
        headers: this.apiKey ? { authorization: `Bearer ${this.apiKey}` } : {},
        body,
      },
      context,
      (status, errorBody, text) =>
        describeOpenAIFailure(this.modelForHints, this.baseUrl, status, errorBody, text),
    );
  }
}

/**
 * The driver for an agent name `openai:<model>` (the registry's loader): the model from the name,
 * everything else from `env` (HOOKBOX_OPENAI_BASE_URL, HOOKBOX_OPENAI_API_KEY).
 */
export function createOpenAIDriver(options: {
  agent: string;
  env?: Record<string, string | undefined>;
}): OpenAIDriver {
  const model = options.agent.startsWith('openai:')
    ? options.agent.slice('openai:'.length)
    : undefined;
  return new OpenAIDriver({
    ...(model === undefined ? {} : { model }),
    env: options.env ?? process.env,
  });
}

class OpenAISession implements ModelSession {
  private readonly messages: ChatMessage[] = [];
  private readonly tools: Record<string, unknown>[];
  private pendingIds: string[] = [];
  private turn = 0;

  constructor(
    private readonly model: string,
    private readonly send: (body: unknown) => Promise<unknown>,
    private readonly context: DriverContext,
  ) {
    if (context.systemInstruction !== undefined && context.systemInstruction !== '')
      this.messages.push({ role: 'system', content: context.systemInstruction });
    for (const segment of segmentsOf(context.history)) this.messages.push(...messagesOf(segment));
    this.messages.push({ role: 'user', content: inputText(context.input, context.agent) });
    this.tools = context.tools.map((tool) => ({
      type: 'function',
      function: {
        name: tool.name,
        description: tool.description,
        parameters: declaredParameters(tool),
      },
    }));
  }

  async next(): Promise<ModelTurn> {
    this.turn++;
    const raw = await this.send({
      model: this.model,
      messages: this.messages,
      ...(this.tools.length > 0 ? { tools: this.tools } : {}),
    });
    const answer = parseAnswer('chat-completions API', ChatCompletion, raw);
    const { message } = answer.choices[0]!;
    if (answer.usage)
      this.context.addUsage({
        input: answer.usage.prompt_tokens ?? 0,
        output: answer.usage.completion_tokens ?? 0,
      });
    const text =
      typeof message.content === 'string'
        ? message.content
        : (message.content ?? []).map((part) => part.text ?? '').join('');
    const wireCalls: WireToolCall[] = [];
    const calls: RequestedCall[] = [];
    for (const [index, call] of (message.tool_calls ?? []).entries()) {
      const args = call.function.arguments;
      const requested = requestedCall(call.function.name, args);
      // Sent back as given when it is a JSON object; unreadable arguments go back as `{}` (their
      // text is in the error the model is shown), as servers such as Ollama refuse to parse them.
      const wireArguments =
        'argsError' in requested
          ? '{}'
          : typeof args === 'string' && args.trim() !== ''
            ? args
            : JSON.stringify(requested.args);
      wireCalls.push({
        id: call.id || `call_${this.turn}_${index}`,
        type: 'function',
        function: { name: call.function.name, arguments: wireArguments },
      });
      calls.push(requested);
    }
    this.messages.push({
      role: 'assistant',
      content: text === '' && wireCalls.length > 0 ? null : text,
      ...(wireCalls.length > 0 ? { tool_calls: wireCalls } : {}),
    });
    this.pendingIds = wireCalls.map((call) => call.id);
    return { text, calls };
  }

  answer(outcomes: CallOutcome[]): void {
    outcomes.forEach((outcome, index) => {
      const id = this.pendingIds[index];
      if (id === undefined) throw new Error('more outcomes than calls');
      this.messages.push({ role: 'tool', tool_call_id: id, content: contentOf(outcome) });
    });
  }
}

/** The arguments of a call as an object, or why they are not one (told to the model). */
function requestedCall(
  name: string,
  args: string | Record<string, unknown> | null | undefined,
): RequestedCall {
  if (args === null || args === undefined) return { name, args: {} };
  if (typeof args !== 'string') return { name, args };
  if (args.trim() === '') return { name, args: {} };
  let value: unknown;
  try {
    value = JSON.parse(args);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    return {
      name,
      argsError: `The call was not run: its arguments are not valid JSON (${why}): ${excerpt(args, 200)}`,
    };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return {
      name,
      argsError: `The call was not run: its arguments must be a JSON object, not ${excerpt(args, 200)}`,
    };
  }
  return { name, args: value as Record<string, unknown> };
}

/** A `tool` message's content: the result as the tool gave it, or `{"error": text}`. */
function contentOf(outcome: { isError: boolean; text: string }): string {
  return outcome.isError ? JSON.stringify({ error: outcome.text }) : outcome.text;
}

/** An earlier turn as messages; hookbox's call ids serve as the `tool_call_id`s. */
function messagesOf(segment: Segment): ChatMessage[] {
  if (segment.role === 'user') return [{ role: 'user', content: segment.text }];
  if (segment.calls.length === 0) return [{ role: 'assistant', content: segment.text }];
  return [
    {
      role: 'assistant',
      content: segment.text === '' ? null : segment.text,
      tool_calls: segment.calls.map((report) => ({
        id: report.call_id,
        type: 'function',
        function: { name: report.tool_call.name, arguments: JSON.stringify(report.tool_call.args) },
      })),
    },
    ...segment.calls.map((report): ChatMessage => ({
      role: 'tool',
      tool_call_id: report.call_id,
      content: contentOf({ isError: report.is_error, text: report.text_for_model }),
    })),
  ];
}

const ErrorFields = z.looseObject({
  message: z.string().optional(),
  type: z.string().nullish(),
  code: z.union([z.string(), z.number()]).nullish(),
});
/** OpenAI and most servers: `{error: {message, type, code}}`; vLLM: those fields at the top;
 * Ollama's own routes: `{error: "text"}`. */
const NestedError = z.looseObject({ error: z.union([ErrorFields, z.string()]) });

function describeOpenAIFailure(
  model: string,
  baseUrl: string,
  status: number,
  body: unknown,
  text: string,
): ApiFailure {
  const nested = NestedError.safeParse(body);
  const flat = ErrorFields.safeParse(body);
  let fields: z.infer<typeof ErrorFields> = {};
  if (nested.success)
    fields =
      typeof nested.data.error === 'string' ? { message: nested.data.error } : nested.data.error;
  else if (flat.success) fields = flat.data;
  const code = typeof fields.code === 'string' ? fields.code : undefined;
  const type = fields.type ?? undefined;
  let kind: FailureKind = failureKindOf(status);
  if (code === 'invalid_api_key') kind = 'key';
  else if (code === 'model_not_found') kind = 'model';
  const hint = failureHint(kind, {
    keyVariable: 'HOOKBOX_OPENAI_API_KEY',
    model,
  });
  return {
    message: failureMessage(
      `Chat-completions API error at ${baseUrl}`,
      status,
      [code ?? type],
      fields.message,
      text,
      hint,
    ),
    details: {
      ...(code === undefined ? {} : { api_code: code }),
      ...(type === undefined ? {} : { api_type: type }),
    },
  };
}
