import { z } from 'zod';
import { SystemError } from '../../errors/errors.js';
import type { DriverContext } from '../driver.js';
import { declaredParameters, inputText, segmentsOf, type Segment } from './conversation.js';
import {
  failureMessage,
  parseAnswer,
  failureHint,
  failureKindOf,
  type ApiFailure,
  type FailureKind,
} from './http-json.js';
import { durationMsOf } from './retry.js';
import { HttpModelDriver, type HttpDriverOptions } from './http-driver.js';
import { runToolLoop, type CallOutcome, type ModelSession, type ModelTurn } from './tool-loop.js';

export const GEMINI_DEFAULT_BASE_URL = 'https://generativelanguage.googleapis.com';
export const GEMINI_DEFAULT_MODEL = 'gemini-2.5-flash';

export interface GeminiDriverOptions extends HttpDriverOptions {
  /** @default env GEMINI_API_KEY */
  apiKey?: string;
  /** A model that supports function calling, with or without the `models/` prefix.
   * @default env HOOKBOX_GEMINI_MODEL, else `gemini-2.5-flash` */
  model?: string;
  /** @default env HOOKBOX_GEMINI_BASE_URL, else `https://generativelanguage.googleapis.com` */
  baseUrl?: string;
  /** Where the defaults above are read. @default process.env */
  env?: Record<string, string | undefined>;
}

/** A `contents` entry of generateContent. Parts are kept as the API gave them (thought signatures). */
interface GeminiContent {
  role: 'user' | 'model';
  parts: Record<string, unknown>[];
}

const FunctionCall = z.looseObject({
  id: z.string().optional(),
  name: z.string(),
  args: z.record(z.string(), z.unknown()).nullish(),
});
const Part = z.looseObject({
  text: z.string().optional(),
  thought: z.boolean().optional(),
  functionCall: FunctionCall.optional(),
});
const GenerateContentResponse = z.looseObject({
  candidates: z
    .array(
      z.looseObject({
        content: z.looseObject({ parts: z.array(Part).optional() }).optional(),
        finishReason: z.string().optional(),
        finishMessage: z.string().optional(),
      }),
    )
    .optional(),
  promptFeedback: z
    .looseObject({
      blockReason: z.string().optional(),
      blockReasonMessage: z.string().optional(),
    })
    .optional(),
  // The tokens of this request: summed into the interaction's `usage` (docs/gemini-sdks.md).
  usageMetadata: z
    .looseObject({
      promptTokenCount: z.number().optional(),
      candidatesTokenCount: z.number().optional(),
      thoughtsTokenCount: z.number().optional(),
    })
    .optional(),
});

/**
 * The real Gemini API (`generateContent` with function calling). The environment's tools are
 * declared with `parametersJsonSchema`, which takes their JSON Schema as it is (`additionalProperties`
 * included); only `$schema` is dropped. Each tool result goes back as a `functionResponse` whose
 * `response` is `{output: <result>}`, or `{error: <text>}` for a blocked or failed call (the
 * convention the API documents), in a `user` turn.
 */
export class GeminiDriver extends HttpModelDriver {
  readonly name = 'gemini';

  constructor(options: GeminiDriverOptions = {}) {
    const env = options.env ?? process.env;
    const model = (options.model ?? (env.HOOKBOX_GEMINI_MODEL || GEMINI_DEFAULT_MODEL)).replace(
      /^models\//,
      '',
    );
    const origin =
      options.model !== undefined
        ? ''
        : env.HOOKBOX_GEMINI_MODEL
          ? ' (HOOKBOX_GEMINI_MODEL)'
          : ' (the default; set HOOKBOX_GEMINI_MODEL to change it)';
    super(
      {
        model,
        baseUrl: options.baseUrl ?? (env.HOOKBOX_GEMINI_BASE_URL || GEMINI_DEFAULT_BASE_URL),
        apiKey: options.apiKey ?? (env.GEMINI_API_KEY || undefined),
        modelForHints: `"${model}"${origin}`,
      },
      options,
    );
  }

  async run(context: DriverContext): Promise<void> {
    if (this.apiKey === undefined || this.apiKey === '') {
      throw new SystemError(
        'internal',
        `The agent "${context.agent}" runs Gemini, which needs an API key: set GEMINI_API_KEY where hookbox runs.`,
        { details: { api: 'Gemini API' } },
      );
    }
    const apiKey = this.apiKey;
    const url = `${this.baseUrl}/v1beta/models/${encodeURIComponent(this.model)}:generateContent`;
    const session = new GeminiSession(
      (body) =>
        this.post(
          { api: 'Gemini API', url, headers: { 'x-goog-api-key': apiKey }, body },
          context,
          (status, errorBody, text) =>
            describeGeminiFailure(this.modelForHints, status, errorBody, text),
        ),
      context,
    );
    await runToolLoop(context, session, `Gemini (${this.model})`);
  }
}

/**
 * The driver for an agent name (the registry's loader): `gemini-*` and `models/*` name the model
 * itself (`gemini-2.5-pro`); any other name (`antigravity-preview-05-2026`) runs the model of
 * HOOKBOX_GEMINI_MODEL, else `gemini-2.5-flash`. The key and base URL come from `env`.
 */
export function createGeminiDriver(options: {
  agent: string;
  env?: Record<string, string | undefined>;
}): GeminiDriver {
  const named = /^(gemini-.+|models\/.+)$/.test(options.agent);
  return new GeminiDriver({
    ...(named ? { model: options.agent } : {}),
    env: options.env ?? process.env,
  });
}

class GeminiSession implements ModelSession {
  private readonly contents: GeminiContent[];
  private readonly fixed: Record<string, unknown>;
  /** The calls of the last model turn: each response names its call (and echoes its id). */
  private pending: { name: string; id?: string }[] = [];

  constructor(
    private readonly send: (body: unknown) => Promise<unknown>,
    private readonly context: DriverContext,
  ) {
    this.contents = [];
    for (const segment of segmentsOf(context.history)) this.push(...contentsOf(segment));
    this.push({ role: 'user', parts: [{ text: inputText(context.input, context.agent) }] });
    this.fixed = {};
    if (context.systemInstruction !== undefined && context.systemInstruction !== '')
      this.fixed.systemInstruction = { parts: [{ text: context.systemInstruction }] };
    if (context.tools.length > 0) {
      this.fixed.tools = [
        {
          functionDeclarations: context.tools.map((tool) => ({
            name: tool.name,
            description: tool.description,
            parametersJsonSchema: declaredParameters(tool),
          })),
        },
      ];
    }
  }

  async next(): Promise<ModelTurn> {
    const raw = await this.send({ contents: this.contents, ...this.fixed });
    const { candidates, promptFeedback, usageMetadata } = parseAnswer(
      'Gemini API',
      GenerateContentResponse,
      raw,
    );
    if (usageMetadata)
      this.context.addUsage({
        input: usageMetadata.promptTokenCount ?? 0,
        output: usageMetadata.candidatesTokenCount ?? 0,
        thought: usageMetadata.thoughtsTokenCount ?? 0,
      });
    const candidate = candidates?.[0];
    if (candidate === undefined) {
      const reason = promptFeedback?.blockReason ?? 'no reason given';
      const message = promptFeedback?.blockReasonMessage;
      throw new SystemError(
        'internal',
        `Gemini gave no answer: the prompt was blocked (${reason})${message ? `: ${message}` : '.'}`,
        { details: { api: 'Gemini API', block_reason: reason } },
      );
    }
    const parts = candidate.content?.parts ?? [];
    const finishReason = candidate.finishReason ?? 'STOP';
    if (parts.length === 0 && finishReason !== 'STOP') {
      const message = candidate.finishMessage;
      throw new SystemError(
        'internal',
        `Gemini stopped without an answer (finishReason ${finishReason})${message ? `: ${message}` : '.'}`,
        { details: { api: 'Gemini API', finish_reason: finishReason } },
      );
    }
    this.push({ role: 'model', parts });

    const text = parts
      .filter((part) => part.thought !== true && part.text !== undefined)
      .map((part) => part.text)
      .join('');
    const calls = parts.flatMap((part) => (part.functionCall ? [part.functionCall] : []));
    this.pending = calls.map((call) => ({ name: call.name, ...(call.id ? { id: call.id } : {}) }));
    return { text, calls: calls.map((call) => ({ name: call.name, args: call.args ?? {} })) };
  }

  answer(outcomes: CallOutcome[]): void {
    const parts = outcomes.map((outcome, index) => {
      const call = this.pending[index];
      if (call === undefined) throw new Error('more outcomes than calls');
      return {
        functionResponse: {
          ...(call.id === undefined ? {} : { id: call.id }),
          name: call.name,
          response: responseOf(outcome),
        },
      };
    });
    this.push({ role: 'user', parts });
  }

  /** Adds contents, joining a content to the one before when both have the same role. */
  private push(...contents: GeminiContent[]): void {
    for (const content of contents) {
      const last = this.contents.at(-1);
      if (last?.role === content.role) last.parts = [...last.parts, ...content.parts];
      else this.contents.push({ role: content.role, parts: [...content.parts] });
    }
  }
}

/** `{output}` for a result, `{error}` for a blocked or failed call (the API's convention). */
function responseOf(outcome: { isError: boolean; text: string }): Record<string, unknown> {
  if (outcome.isError) return { error: outcome.text };
  try {
    return { output: JSON.parse(outcome.text) as unknown };
  } catch {
    return { output: outcome.text };
  }
}

/** An earlier turn as generateContent contents; calls carry no id (hookbox's ids are not Gemini's). */
function contentsOf(segment: Segment): GeminiContent[] {
  if (segment.role === 'user') return [{ role: 'user', parts: [{ text: segment.text }] }];
  const parts: Record<string, unknown>[] = segment.text === '' ? [] : [{ text: segment.text }];
  for (const report of segment.calls)
    parts.push({ functionCall: { name: report.tool_call.name, args: report.tool_call.args } });
  const contents: GeminiContent[] = [{ role: 'model', parts }];
  if (segment.calls.length > 0) {
    contents.push({
      role: 'user',
      parts: segment.calls.map((report) => ({
        functionResponse: {
          name: report.tool_call.name,
          response: responseOf({ isError: report.is_error, text: report.text_for_model }),
        },
      })),
    });
  }
  return contents;
}

const GeminiError = z.looseObject({
  error: z.looseObject({
    code: z.number().optional(),
    message: z.string().optional(),
    status: z.string().optional(),
    details: z.array(z.looseObject({ reason: z.string().optional() })).optional(),
  }),
});

/** `{error: {code, message, status, details: [{reason}, {retryDelay}…]}}` in words, with a hint. */
function describeGeminiFailure(
  /** The model as hints name it: `"gemini-2.5-pro" (HOOKBOX_GEMINI_MODEL)`. */
  model: string,
  status: number,
  body: unknown,
  text: string,
): ApiFailure {
  const parsed = GeminiError.safeParse(body);
  const error = parsed.success ? parsed.data.error : undefined;
  const reason = error?.details?.find((detail) => detail.reason !== undefined)?.reason;
  const retryDelay = error?.details
    ?.map((detail) => detail.retryDelay)
    .find((delay) => typeof delay === 'string');
  let kind: FailureKind = failureKindOf(status);
  if (reason === 'API_KEY_INVALID' || error?.status === 'UNAUTHENTICATED') kind = 'key';
  let hint = failureHint(kind, {
    keyVariable: 'GEMINI_API_KEY',
    model,
  });
  if (kind === 'rate' && typeof retryDelay === 'string')
    hint = `${hint.slice(0, -1)} (the API suggests after ${retryDelay}).`;
  const retryAfterMs = typeof retryDelay === 'string' ? durationMsOf(retryDelay) : undefined;
  return {
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    message: failureMessage(
      'Gemini API error',
      status,
      [error?.status, reason],
      error?.message,
      text,
      hint,
    ),
    details: {
      ...(error?.status === undefined ? {} : { api_status: error.status }),
      ...(reason === undefined ? {} : { api_reason: reason }),
    },
  };
}
