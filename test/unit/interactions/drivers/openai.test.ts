import { describe, expect, it } from 'vitest';
import { SystemError, UserError } from '../../../../src/errors/errors.js';
import { createOpenAIDriver, OpenAIDriver } from '../../../../src/interactions/drivers/openai.js';
import type { ConversationTurn } from '../../../../src/interactions/driver.js';
import { MODEL_TOOLS, declared, fakeContext, report } from './fake-context.js';
import {
  closedPort,
  recording,
  replayServers,
  type Exchange,
  type SeenRequest,
} from './replay-server.js';

const KEY = 'sk-test-openai-key';
const PATH = '/v1/chat/completions';
const replay = replayServers();

/** A driver on the replay server; it does not retry unless told (retries: driver-retries.test.ts). */
function driver(baseUrl: string, options: { apiKey?: string; timeoutMs?: number } = {}) {
  return new OpenAIDriver({
    baseUrl: `${baseUrl}/v1/`,
    model: 'qwen2.5:7b',
    apiKey: KEY,
    env: {},
    maxRetries: 0,
    ...options,
  });
}

/** A chat-completions request as the driver sends it: the fields the tests read. */
interface ChatRequest {
  messages: { role: string; content: string | null; [field: string]: unknown }[];
  tools: { function: { name: string; parameters: unknown } }[];
}

/** One chat-completions request with the key, answered by a recording. */
function exchange(
  file: string,
  check?: (request: SeenRequest & { body: ChatRequest }) => void,
): Exchange {
  return {
    path: PATH,
    headers: { authorization: `Bearer ${KEY}`, 'x-goog-api-key': null },
    check: check && ((request) => check({ ...request, body: request.body as ChatRequest })),
    response: recording(`openai/${file}`),
  };
}

/** The `tool_calls` of a recorded answer. */
function recordedCalls(
  file: string,
): { id: string; function: { name: string; arguments: string } }[] {
  const body = recording(`openai/${file}`).body as {
    choices: {
      message: { tool_calls: { id: string; function: { name: string; arguments: string } }[] };
    }[];
  };
  return body.choices[0]!.message.tool_calls;
}

/** The assistant message the driver must send back for a recorded tool-call answer. */
function assistantTurn(file: string, content: string | null = null): unknown {
  return {
    role: 'assistant',
    content,
    tool_calls: recordedCalls(file).map((call) => ({
      id: call.id,
      type: 'function',
      function: { name: call.function.name, arguments: call.function.arguments },
    })),
  };
}

const ALL_TOOLS = MODEL_TOOLS.map((tool) => ({
  type: 'function',
  function: { name: tool.name, description: tool.description, parameters: declared(tool.name) },
}));

describe('OpenAIDriver against recorded chat-completions answers', () => {
  it('sends model, system and user messages and tools, and emits a plain text answer', async () => {
    const server = await replay([
      exchange('text-answer.json', ({ body }) => {
        expect(body).toEqual({
          model: 'qwen2.5:7b',
          messages: [
            { role: 'system', content: 'Be brief.' },
            { role: 'user', content: 'What can you do?' },
          ],
          tools: ALL_TOOLS,
        });
        expect(body.tools[0]?.function.parameters).toEqual({
          type: 'object',
          properties: {
            code: { type: 'string' },
            language: { type: 'string', enum: ['bash', 'python', 'sh'] },
          },
          required: ['code'],
          additionalProperties: false,
        });
      }),
    ]);
    const context = fakeContext({
      agent: 'openai:qwen2.5:7b',
      input: 'What can you do?',
      systemInstruction: 'Be brief.',
    });
    await driver(server.baseUrl).run(context);
    expect(context.outputs).toEqual([
      "Hello! I can run code and work with files in the sandbox's /workspace. What should I do?",
    ]);
  });

  it('sends no Authorization header without a key and no tools when there are none', async () => {
    const server = await replay([
      {
        ...exchange('text-answer.json', ({ body }) => {
          expect(body).not.toHaveProperty('tools');
        }),
        headers: { authorization: null },
      },
    ]);
    await driver(server.baseUrl, { apiKey: undefined }).run(fakeContext({ tools: [] }));
  });

  it('runs a tool call, sends its result back as a tool message, then emits the answer', async () => {
    const listing = { exit_code: 0, stdout: 'notes.txt\nprivate\npublic\n', stderr: '' };
    const server = await replay([
      exchange('call-list-workspace.json'),
      exchange('answer-after-listing.json', ({ body }) => {
        expect(body.messages).toEqual([
          { role: 'user', content: 'What is in the workspace?' },
          assistantTurn('call-list-workspace.json'),
          { role: 'tool', tool_call_id: 'call_x3vq9k2m', content: JSON.stringify(listing) },
        ]);
        expect(body.tools).toEqual(ALL_TOOLS);
      }),
    ]);
    const context = fakeContext({
      input: [{ type: 'text', text: 'What is in the workspace?' }],
      answers: [(call) => report(call, { result: listing })],
    });
    await driver(server.baseUrl).run(context);
    expect(context.calls).toEqual([
      { name: 'code_execution', args: { code: 'ls -la /workspace', language: 'bash' } },
    ]);
    expect(context.outputs).toEqual([
      'The workspace holds two folders, `public` and `private`, and a file `notes.txt` (42 bytes).',
    ]);
  });

  it('feeds a blocked call back as an error whose text is the reason', async () => {
    const reason = 'Destructive command blocked by security gate.';
    const server = await replay([
      exchange('call-rm-forbidden.json'),
      exchange('answer-after-block.json', ({ body }) => {
        expect(body.messages.at(-1)).toEqual({
          role: 'tool',
          tool_call_id: 'call_Qm3hT9yV2kLp8XbN4cRw7sJd',
          content: JSON.stringify({ error: reason }),
        });
      }),
    ]);
    const context = fakeContext({
      input: 'Run `rm -rf /tmp/forbidden` using code_execution.',
      answers: [(call) => report(call, { blocked: reason })],
    });
    await driver(server.baseUrl).run(context);
    expect(context.calls).toEqual([
      { name: 'code_execution', args: { code: 'rm -rf /tmp/forbidden', language: 'bash' } },
    ]);
    expect(context.outputs[0]).toContain('a security hook blocked the command');
  });

  it('runs two calls of one turn in order and answers each by its id', async () => {
    const summary = { content: '{"departments":3,"employees":42}' };
    const listing = { entries: [{ name: 'README.md', type: 'file', size: 120 }] };
    const server = await replay([
      exchange('call-two-files.json'),
      exchange('answer-after-two.json', ({ body }) => {
        expect(body.messages.slice(1)).toEqual([
          assistantTurn('call-two-files.json'),
          {
            role: 'tool',
            tool_call_id: 'call_8JkP2wQz5RtY1vN3xLm7aBcD',
            content: JSON.stringify(summary),
          },
          {
            role: 'tool',
            tool_call_id: 'call_fH4sG6jK9lZ2xC5vB8nM1qWe',
            content: JSON.stringify(listing),
          },
        ]);
      }),
    ]);
    const context = fakeContext({
      input: 'Summarise /workspace/public.',
      answers: [
        (call) => report(call, { result: summary }),
        (call) => report(call, { result: listing }),
      ],
    });
    await driver(server.baseUrl).run(context);
    expect(context.calls).toEqual([
      { name: 'read_file', args: { path: '/workspace/public/summary.json' } },
      { name: 'list_files', args: { path: '/workspace/public' } },
    ]);
    expect(context.outputs).toHaveLength(1);
  });

  it('tells the model its arguments were not JSON, without running the call, and goes on', async () => {
    const written = { ok: true };
    const server = await replay([
      exchange('call-malformed-arguments.json'),
      exchange('call-write-notes.json', ({ body }) => {
        expect(body.messages.slice(1)).toEqual([
          {
            role: 'assistant',
            content: null,
            tool_calls: [
              {
                id: 'Y2xH5Sz0mYqXHk1mRB8V6w0r8c0pWq2z',
                type: 'function',
                function: { name: 'write_file', arguments: '{}' },
              },
            ],
          },
          {
            role: 'tool',
            tool_call_id: 'Y2xH5Sz0mYqXHk1mRB8V6w0r8c0pWq2z',
            content: expect.any(String) as string,
          },
        ]);
        const { error } = JSON.parse(body.messages[2]?.content ?? '') as { error: string };
        expect(error).toMatch(/^The call was not run: its arguments are not valid JSON \(/);
        expect(error).toContain('{"path": "/workspace/notes.txt", "content": "hello');
      }),
      exchange('answer-after-write.json', ({ body }) => {
        expect(body.messages.at(-2)).toEqual(
          assistantTurn('call-write-notes.json', 'Let me write that file again.'),
        );
        expect(body.messages.at(-1)).toEqual({
          role: 'tool',
          tool_call_id: 'Bq7Lm2Zx9Cv4Nb1Vc8Xz3Lk6Jh5Gf0Dd',
          content: JSON.stringify(written),
        });
      }),
    ]);
    const context = fakeContext({
      input: 'Write hello to /workspace/notes.txt.',
      answers: [(call) => report(call, { result: written })],
    });
    await driver(server.baseUrl).run(context);
    expect(context.calls).toEqual([
      { name: 'write_file', args: { path: '/workspace/notes.txt', content: 'hello' } },
    ]);
    expect(context.outputs).toEqual([
      'Let me write that file again.',
      'I wrote "hello" to /workspace/notes.txt.',
    ]);
  });

  it('stops at the step limit with a clear error, without running the last turn’s calls', async () => {
    const server = await replay([exchange('call-list-workspace.json')]);
    const context = fakeContext({ maxSteps: 1 });
    const error = await driver(server.baseUrl)
      .run(context)
      .catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(SystemError);
    expect((error as SystemError).message).toBe(
      `The model qwen2.5:7b at ${server.baseUrl}/v1 reached the step limit of 1 model turns ` +
        'without a final answer; its last turn asked for code_execution, which did not run.',
    );
    expect(context.calls).toEqual([]);
  });

  it('sends the history of a previous interaction before the new input', async () => {
    const blocked = report(
      { name: 'read_file', args: { path: '/workspace/private/employees.json' } },
      { blocked: 'PII access denied by privacy gate.' },
    );
    const history: ConversationTurn[] = [
      { role: 'user', text: 'Read /workspace/private/employees.json.' },
      { role: 'tool_call', report: blocked },
      { role: 'model', text: 'A privacy hook blocked that file.' },
    ];
    const server = await replay([
      exchange('text-answer.json', ({ body }) => {
        expect(body.messages).toEqual([
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'Read /workspace/private/employees.json.' },
          {
            role: 'assistant',
            content: null,
            tool_calls: [
              {
                id: blocked.call_id,
                type: 'function',
                function: {
                  name: 'read_file',
                  arguments: '{"path":"/workspace/private/employees.json"}',
                },
              },
            ],
          },
          {
            role: 'tool',
            tool_call_id: blocked.call_id,
            content: '{"error":"PII access denied by privacy gate."}',
          },
          { role: 'assistant', content: 'A privacy hook blocked that file.' },
          { role: 'user', content: 'Read /workspace/public/summary.json instead.' },
        ]);
      }),
    ]);
    const context = fakeContext({
      history,
      systemInstruction: 'Be brief.',
      input: [{ type: 'text', text: 'Read /workspace/public/summary.json instead.' }],
    });
    await driver(server.baseUrl).run(context);
    expect(context.outputs).toHaveLength(1);
  });

  it.each([
    [
      'error-401-invalid-api-key.json',
      'Chat-completions API error at {base}/v1 (HTTP 401 invalid_api_key): Incorrect API key provided: sk-proj-****ZXY0. ' +
        'You can find your API key at https://platform.openai.com/account/api-keys. ' +
        "The API refused hookbox's API key (or its absence): check HOOKBOX_OPENAI_API_KEY where hookbox runs.",
      false,
    ],
    [
      'error-400-context-length.json',
      "(HTTP 400 context_length_exceeded): This model's maximum context length is 1047576 tokens.",
      false,
    ],
    [
      'error-404-ollama-model-not-found.json',
      '(HTTP 404 api_error): model "qwen9:70b" not found, try pulling it first. ' +
        'Check the model name "qwen2.5:7b" and the base URL.',
      false,
    ],
    [
      'error-429-rate-limit.json',
      '(HTTP 429 rate_limit_exceeded): Rate limit reached for gpt-4.1-mini',
      true,
    ],
    [
      'error-500-server-error.json',
      '(HTTP 500 server_error): The server had an error while processing your request. Sorry about that! ' +
        'The failure is on the API side; try again later.',
      true,
    ],
  ])('%s becomes a clear SystemError', async (file, message, retryable) => {
    const { status } = recording(`openai/${file}`);
    const server = await replay([exchange(file)]);
    const error = await driver(server.baseUrl)
      .run(fakeContext({}))
      .catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(SystemError);
    const systemError = error as SystemError;
    expect(systemError.code).toBe('internal');
    expect(systemError.message).toContain(message.replace('{base}', server.baseUrl));
    expect(systemError.retryable).toBe(retryable);
    expect(systemError.details).toMatchObject({ api: 'chat-completions API', status });
  });

  it('reads vLLM-style and plain-text error bodies too', async () => {
    const server = await replay([
      {
        ...exchange('text-answer.json'),
        response: {
          status: 404,
          body: {
            object: 'error',
            message: 'The model `qwen9` does not exist.',
            type: 'NotFoundError',
            param: null,
            code: 404,
          },
        },
      },
      { ...exchange('text-answer.json'), response: { status: 502, body: 'Bad Gateway' } },
    ]);
    await expect(driver(server.baseUrl).run(fakeContext({}))).rejects.toThrow(
      '(HTTP 404 NotFoundError): The model `qwen9` does not exist.',
    );
    await expect(driver(server.baseUrl).run(fakeContext({}))).rejects.toThrow(
      '(HTTP 502): "Bad Gateway". The failure is on the API side',
    );
  });

  it('reports an endpoint that cannot be reached', async () => {
    const port = await closedPort();
    const error = await new OpenAIDriver({
      baseUrl: `http://127.0.0.1:${port}/v1`,
      model: 'm',
      env: {},
      maxRetries: 0,
    })
      .run(fakeContext({}))
      .catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(SystemError);
    expect((error as SystemError).retryable).toBe(true);
    expect((error as SystemError).message).toMatch(
      new RegExp(
        `^Could not reach the chat-completions API at http://127.0.0.1:${port}/v1/chat/completions: .*ECONNREFUSED`,
      ),
    );
  });

  it('takes the model from the agent name, the rest from the environment, and needs both', async () => {
    const fromEnv = new OpenAIDriver({
      env: {
        HOOKBOX_OPENAI_BASE_URL: 'http://vllm:8000/v1',
        HOOKBOX_OPENAI_MODEL: 'Qwen/Qwen2.5-7B-Instruct',
      },
    });
    expect([fromEnv.baseUrl, fromEnv.model]).toEqual([
      'http://vllm:8000/v1',
      'Qwen/Qwen2.5-7B-Instruct',
    ]);
    const env = {
      HOOKBOX_OPENAI_BASE_URL: 'http://localhost:11434/v1',
      HOOKBOX_OPENAI_API_KEY: 'k',
    };
    const made = createOpenAIDriver({ agent: 'openai:qwen2.5:7b', env });
    expect([made.model, made.baseUrl]).toEqual(['qwen2.5:7b', 'http://localhost:11434/v1']);
    await expect(new OpenAIDriver({ model: 'm', env: {} }).run(fakeContext({}))).rejects.toThrow(
      'set HOOKBOX_OPENAI_BASE_URL where hookbox runs',
    );
    const error = await new OpenAIDriver({ env })
      .run(fakeContext({ agent: 'openai' }))
      .catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(UserError);
    expect((error as UserError).message).toBe(
      'The agent "openai" names no model: use "openai:<model>", e.g. "openai:qwen2.5:7b".',
    );
  });
});
