import { describe, expect, it } from 'vitest';
import { SystemError } from '../../../../src/errors/errors.js';
import { GeminiDriver } from '../../../../src/interactions/drivers/gemini.js';
import { OpenAIDriver } from '../../../../src/interactions/drivers/openai.js';
import { retryAfterMsOf } from '../../../../src/interactions/drivers/retry.js';
import { fakeContext } from './fake-context.js';
import { recording, replayServers, type Exchange } from './replay-server.js';

const KEY = 'test-key';
const GEMINI_PATH = '/v1beta/models/gemini-2.5-flash:generateContent';
const replay = replayServers();

function gemini(file: string): Exchange {
  return { path: GEMINI_PATH, headers: { 'x-goog-api-key': KEY }, response: recording(file) };
}

function geminiDriver(baseUrl: string, options: ConstructorParameters<typeof GeminiDriver>[0]) {
  return new GeminiDriver({ apiKey: KEY, baseUrl, model: 'gemini-2.5-flash', env: {}, ...options });
}

const TEXT_ANSWER =
  "Hello! I can run code and read, write, list and delete files in the sandbox's /workspace. What would you like me to do?";

describe('model drivers try a 408, 429 or 5xx again (docs/drivers.md, Retries)', () => {
  it('Gemini: a recorded 429 with Retry-After, then 200, completes the interaction', async () => {
    const server = await replay([
      gemini('gemini/error-429-retry-after.json'),
      gemini('gemini/text-answer.json'),
    ]);
    const context = fakeContext({ input: 'What can you do?' });
    await geminiDriver(server.baseUrl, {}).run(context);
    expect(context.outputs).toEqual([TEXT_ANSWER]);
    const [first, second] = server.requests;
    expect(second!.body).toEqual(first!.body);
    // Retry-After: 1 is honoured: the second try does not come before the second is up.
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(950);
  });

  it('OpenAI-compatible: a recorded 429 with retry-after-ms, then 200, completes', async () => {
    const exchange = (file: string): Exchange => ({
      path: '/v1/chat/completions',
      headers: { authorization: `Bearer ${KEY}` },
      response: recording(`openai/${file}`),
    });
    const server = await replay([
      exchange('error-429-retry-after.json'),
      exchange('text-answer.json'),
    ]);
    const context = fakeContext({});
    await new OpenAIDriver({
      baseUrl: `${server.baseUrl}/v1`,
      model: 'qwen2.5:7b',
      apiKey: KEY,
      env: {},
    }).run(context);
    expect(context.outputs).toHaveLength(1);
    expect(server.requests[1]!.at - server.requests[0]!.at).toBeGreaterThanOrEqual(950);
  });

  it('backs off when the API names no wait, and gives up after maxRetries', async () => {
    const server = await replay([
      gemini('gemini/error-500-internal.json'),
      gemini('gemini/error-500-internal.json'),
      gemini('gemini/text-answer.json'),
      gemini('gemini/error-500-internal.json'),
      gemini('gemini/error-500-internal.json'),
    ]);
    const context = fakeContext({});
    await geminiDriver(server.baseUrl, { retryInitialDelayMs: 10 }).run(context);
    expect(context.outputs).toEqual([TEXT_ANSWER]);
    const error = await geminiDriver(server.baseUrl, { retryInitialDelayMs: 10, maxRetries: 1 })
      .run(fakeContext({}))
      .catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(SystemError);
    expect(error).toMatchObject({ retryable: true, details: { status: 500 } });
    expect(server.requests).toHaveLength(5);
  });

  it('fails at once when Retry-After asks for longer than maxRetryDelayMs', async () => {
    const server = await replay([gemini('gemini/error-429-daily-quota.json')]);
    const error = await geminiDriver(server.baseUrl, {})
      .run(fakeContext({}))
      .catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(SystemError);
    expect((error as SystemError).message).toContain(
      'The API asks to wait 3600 s before trying again, longer than the 60000 ms hookbox waits.',
    );
    expect(error).toMatchObject({ retryable: true, details: { retry_after_ms: 3_600_000 } });
    expect(server.requests).toHaveLength(1);
  });

  it('an aborted interaction stops its driver within a second, while it waits to retry', async () => {
    const server = await replay([gemini('gemini/error-429-daily-quota.json')]);
    const controller = new AbortController();
    const cancelled = new SystemError('internal', 'environment deleted');
    const started = Date.now();
    // After the 429 has arrived: nothing tells when the driver starts its wait, so a little time.
    void server.received(1).then(() => setTimeout(() => controller.abort(cancelled), 50));
    await expect(
      geminiDriver(server.baseUrl, { maxRetryDelayMs: 3_600_000 }).run(
        fakeContext({ signal: controller.signal }),
      ),
    ).rejects.toBe(cancelled);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(server.requests).toHaveLength(1);
  });

  it('an aborted interaction stops its driver within a second, while a request hangs', async () => {
    const server = await replay([{ ...gemini('gemini/text-answer.json'), response: 'hang' }]);
    const controller = new AbortController();
    const cancelled = new SystemError('internal', 'controller shutting down');
    const started = Date.now();
    void server.received(1).then(() => controller.abort(cancelled));
    await expect(
      geminiDriver(server.baseUrl, {}).run(fakeContext({ signal: controller.signal })),
    ).rejects.toBe(cancelled);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('reads Retry-After as seconds, as an HTTP date, and retry-after-ms', () => {
    const now = Date.parse('2026-12-01T08:00:00Z');
    expect(retryAfterMsOf(new Headers({ 'retry-after': '7' }), now)).toBe(7000);
    expect(
      retryAfterMsOf(new Headers({ 'retry-after': 'Tue, 01 Dec 2026 08:00:30 GMT' }), now),
    ).toBe(30_000);
    expect(retryAfterMsOf(new Headers({ 'retry-after-ms': '250', 'retry-after': '9' }), now)).toBe(
      250,
    );
    expect(retryAfterMsOf(new Headers({ 'retry-after': 'soon' }), now)).toBeUndefined();
    expect(retryAfterMsOf(new Headers(), now)).toBeUndefined();
  });
});
