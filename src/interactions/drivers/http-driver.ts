import type { DriverContext, ModelDriver } from '../driver.js';
import { DEFAULT_MODEL_TIMEOUT_MS, postJson, type DescribeFailure } from './http-json.js';
import { retryPolicyOf, type RetryOptions, type RetryPolicy } from './retry.js';

/** What every HTTP model driver is given besides its own settings (docs/drivers.md). */
export interface HttpDriverOptions extends RetryOptions {
  /** @default the global fetch */
  fetch?: typeof fetch;
  /** How long one request to the model may take. @default 300000 */
  timeoutMs?: number;
}

/** A driver's resolved endpoint: the model, where it is served, its key, and how hints name it. */
export interface HttpDriverEndpoint {
  model: string;
  baseUrl: string;
  apiKey: string | undefined;
  /** The model as error hints name it, with where it came from when that was not the options. */
  modelForHints: string;
}

/**
 * A model driver that posts JSON to an HTTP API: the endpoint, the timeout, the retry policy and
 * the one way a request is sent (with the interaction's cancellation signal).
 */
export abstract class HttpModelDriver implements ModelDriver {
  abstract readonly name: string;
  readonly model: string;
  readonly baseUrl: string;
  readonly timeoutMs: number;
  /** When a 408, 429, 5xx or broken connection is tried again (docs/drivers.md, Retries). */
  readonly retry: RetryPolicy;
  protected readonly modelForHints: string;
  protected readonly apiKey: string | undefined;
  private readonly fetch: typeof fetch;

  protected constructor(endpoint: HttpDriverEndpoint, options: HttpDriverOptions) {
    this.model = endpoint.model;
    this.baseUrl = endpoint.baseUrl.replace(/\/+$/, '');
    this.apiKey = endpoint.apiKey;
    this.modelForHints = endpoint.modelForHints;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_MODEL_TIMEOUT_MS;
    this.retry = retryPolicyOf(options);
    this.fetch = options.fetch ?? globalThis.fetch;
  }

  abstract run(context: DriverContext): Promise<void>;

  /** Posts `body` to `url` with the driver's timeout, retries and the interaction's signal. */
  protected post(
    request: { api: string; url: string; headers: Record<string, string>; body: unknown },
    context: DriverContext,
    describe: DescribeFailure,
  ): Promise<unknown> {
    return postJson(
      {
        ...request,
        timeoutMs: this.timeoutMs,
        signal: context.signal,
        fetch: this.fetch,
        retry: this.retry,
      },
      describe,
    );
  }
}
