import { describe, expect, it } from 'vitest';
import { SystemError, UserError } from '../../../../src/errors/errors.js';
import { createGeminiDriver, GeminiDriver } from '../../../../src/interactions/drivers/gemini.js';
import type { ConversationTurn } from '../../../../src/interactions/driver.js';
import { MODEL_TOOLS, declared, fakeContext, report } from './fake-context.js';
import { recording, replayServers, type Exchange, type SeenRequest } from './replay-server.js';

const KEY = 'test-gemini-key';
const PATH = '/v1beta/models/gemini-2.5-flash:generateContent';
const replay = replayServers();

/** A driver on the replay server; it does not retry unless told (retries: driver-retries.test.ts). */
function driver(
  baseUrl: string,
  options: { timeoutMs?: number; model?: string; maxRetries?: number } = {},
) {
  return new GeminiDriver({
    apiKey: KEY,
    baseUrl,
    model: 'gemini-2.5-flash',
    env: {},
    maxRetries: 0,
    ...options,
  });
}

/** A generateContent request as the driver sends it: the fields the tests read. */
interface GenerateRequest {
  contents: {
    role: string;
    parts: { thoughtSignature?: string; functionResponse?: { response: unknown } }[];
  }[];
  tools: { functionDeclarations: unknown[] }[];
}

/** One generateContent request with the key, answered by a recording. */
function exchange(
  file: string,
  check?: (request: SeenRequest & { body: GenerateRequest }) => void,
): Exchange {
  return {
    path: PATH,
    headers: { 'x-goog-api-key': KEY, authorization: null },
    check: check && ((request) => check({ ...request, body: request.body as GenerateRequest })),
    response: recording(`gemini/${file}`),
  };
}

/** The `parts` of a recorded candidate, as the driver must send them back (signatures included). */
function modelParts(file: string): unknown {
  const body = recording(`gemini/${file}`).body as {
    candidates: { content: { parts: unknown } }[];
  };
  return body.candidates[0]!.content.parts;
}

const ALL_DECLARATIONS = [
  {
    functionDeclarations: MODEL_TOOLS.map((tool) => ({
      name: tool.name,
      description: tool.description,
      parametersJsonSchema: declared(tool.name),
    })),
  },
];

describe('GeminiDriver against recorded generateContent answers', () => {
  it('sends the input, tools and system instruction, and emits a plain text answer', async () => {
    const server = await replay([
      exchange('text-answer.json', ({ body }) => {
        expect(body).toEqual({
          contents: [{ role: 'user', parts: [{ text: 'What can you do?' }] }],
          systemInstruction: { parts: [{ text: 'Be brief.' }] },
          tools: ALL_DECLARATIONS,
        });
      }),
    ]);
    const usage: unknown[] = [];
    const context = fakeContext({
      input: 'What can you do?',
      systemInstruction: 'Be brief.',
      addUsage: (tokens) => usage.push(tokens),
    });
    await driver(server.baseUrl).run(context);
    // The answer's usageMetadata goes into the interaction's usage (docs/gemini-sdks.md).
    expect(usage).toEqual([{ input: 412, output: 29, thought: 87 }]);
    expect(context.outputs).toEqual([
      "Hello! I can run code and read, write, list and delete files in the sandbox's /workspace. What would you like me to do?",
    ]);
    expect(context.calls).toEqual([]);
  });

  it('declares parametersJsonSchema as zod gives it, additionalProperties kept, $schema dropped', async () => {
    const server = await replay([
      exchange('text-answer.json', ({ body }) => {
        const code = body.tools[0]?.functionDeclarations[0];
        expect(code).toEqual({
          name: 'code_execution',
          description: 'Run bash, sh or python code in the sandbox; cwd /workspace.',
          parametersJsonSchema: {
            type: 'object',
            properties: {
              code: { type: 'string' },
              language: { type: 'string', enum: ['bash', 'python', 'sh'] },
            },
            required: ['code'],
            additionalProperties: false,
          },
        });
        expect(body).not.toHaveProperty('systemInstruction');
      }),
    ]);
    await driver(server.baseUrl).run(fakeContext({}));
  });

  it('runs a function call, sends its result back with the model turn, then emits the answer', async () => {
    const listing = { exit_code: 0, stdout: 'notes.txt\nprivate\npublic\n', stderr: '' };
    const server = await replay([
      exchange('call-list-workspace.json'),
      exchange('answer-after-listing.json', ({ body }) => {
        expect(body.contents).toEqual([
          { role: 'user', parts: [{ text: 'What is in the workspace?' }] },
          { role: 'model', parts: modelParts('call-list-workspace.json') },
          {
            role: 'user',
            parts: [
              { functionResponse: { name: 'code_execution', response: { output: listing } } },
            ],
          },
        ]);
        expect(body.contents[1]?.parts[0]?.thoughtSignature).toMatch(/^CtQD/);
        expect(body.tools).toEqual(ALL_DECLARATIONS);
      }),
    ]);
    const context = fakeContext({
      input: [
        { type: 'text', text: 'What is in the workspace?' },
        { type: 'image', uri: 'x' },
      ],
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
        expect(body.contents.at(-1)).toEqual({
          role: 'user',
          parts: [{ functionResponse: { name: 'code_execution', response: { error: reason } } }],
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

  it('runs two calls of one turn in order and answers both, echoing their ids', async () => {
    const summary = { content: '{"departments":3,"employees":42}' };
    const listing = { entries: [{ name: 'README.md', type: 'file', size: 120 }] };
    const server = await replay([
      exchange('call-two-files.json'),
      exchange('answer-after-two.json', ({ body }) => {
        expect(body.contents).toHaveLength(3);
        expect(body.contents[1]).toEqual({
          role: 'model',
          parts: modelParts('call-two-files.json'),
        });
        expect(body.contents[2]).toEqual({
          role: 'user',
          parts: [
            {
              functionResponse: {
                id: '0ckgx3ab',
                name: 'read_file',
                response: { output: summary },
              },
            },
            {
              functionResponse: {
                id: 'v9r2ltwe',
                name: 'list_files',
                response: { output: listing },
              },
            },
          ],
        });
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
    expect(context.calls.map((call) => call.name)).toEqual(['read_file', 'list_files']);
    expect(context.outputs).toHaveLength(1);
  });

  it('stops at the step limit with a clear error, without running the last turn’s calls', async () => {
    const server = await replay([
      exchange('call-list-workspace.json'),
      exchange('call-list-workspace.json'),
    ]);
    const context = fakeContext({
      maxSteps: 2,
      answers: [(call) => report(call, { result: { exit_code: 0, stdout: '', stderr: '' } })],
    });
    const error = await driver(server.baseUrl)
      .run(context)
      .catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(SystemError);
    expect((error as SystemError).message).toBe(
      'Gemini (gemini-2.5-flash) reached the step limit of 2 model turns without a final answer; ' +
        'its last turn asked for code_execution, which did not run.',
    );
    expect((error as SystemError).details).toMatchObject({ reason: 'step_limit', max_steps: 2 });
    expect(context.calls).toHaveLength(1);
  });

  it('sends the history of a previous interaction before the new input', async () => {
    const blocked = report(
      { name: 'read_file', args: { path: '/workspace/private/employees.json' } },
      { blocked: 'PII access denied by privacy gate.' },
    );
    const history: ConversationTurn[] = [
      { role: 'user', text: 'Read /workspace/private/employees.json.' },
      { role: 'model', text: 'Let me read it.' },
      { role: 'tool_call', report: blocked },
      { role: 'model', text: 'A privacy hook blocked that file.' },
    ];
    const server = await replay([
      exchange('text-answer.json', ({ body }) => {
        expect(body.contents).toEqual([
          { role: 'user', parts: [{ text: 'Read /workspace/private/employees.json.' }] },
          {
            role: 'model',
            parts: [
              { text: 'Let me read it.' },
              {
                functionCall: {
                  name: 'read_file',
                  args: { path: '/workspace/private/employees.json' },
                },
              },
            ],
          },
          {
            role: 'user',
            parts: [
              {
                functionResponse: {
                  name: 'read_file',
                  response: { error: 'PII access denied by privacy gate.' },
                },
              },
            ],
          },
          { role: 'model', parts: [{ text: 'A privacy hook blocked that file.' }] },
          { role: 'user', parts: [{ text: 'Read /workspace/public/summary.json instead.' }] },
        ]);
      }),
    ]);
    const context = fakeContext({
      history,
      input: [{ type: 'text', text: 'Read /workspace/public/summary.json instead.' }],
    });
    await driver(server.baseUrl).run(context);
    expect(context.outputs).toHaveLength(1);
  });

  it.each([
    [
      'error-400-api-key-invalid.json',
      'Gemini API error (HTTP 400 INVALID_ARGUMENT API_KEY_INVALID): API key not valid. Please pass a valid API key. ' +
        "The API refused hookbox's API key (or its absence): check GEMINI_API_KEY where hookbox runs.",
      false,
    ],
    [
      'error-404-model-not-found.json',
      'Gemini API error (HTTP 404 NOT_FOUND): models/gemini-9.9-ultra is not found for API version v1beta',
      false,
    ],
    [
      'error-429-resource-exhausted.json',
      'Gemini API error (HTTP 429 RESOURCE_EXHAUSTED): You exceeded your current quota',
      true,
    ],
    [
      'error-500-internal.json',
      'Gemini API error (HTTP 500 INTERNAL): An internal error has occurred.',
      true,
    ],
  ])('%s becomes a clear SystemError', async (file, message, retryable) => {
    const { status } = recording(`gemini/${file}`);
    const server = await replay([exchange(file)]);
    const context = fakeContext({});
    const error = await driver(server.baseUrl)
      .run(context)
      .catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(SystemError);
    const systemError = error as SystemError;
    expect(systemError.code).toBe('internal');
    expect(systemError.message).toContain(message);
    expect(systemError.retryable).toBe(retryable);
    expect(systemError.details).toMatchObject({ api: 'Gemini API', status });
    expect(context.outputs).toEqual([]);
  });

  it('says when the model is not found which model to check, and where it was set', async () => {
    const notFound = {
      ...exchange('error-404-model-not-found.json'),
      path: '/v1beta/models/gemini-9.9-ultra:generateContent',
    };
    const server = await replay([notFound, notFound, exchange('error-404-model-not-found.json')]);
    await expect(
      driver(server.baseUrl, { model: 'models/gemini-9.9-ultra' }).run(fakeContext({})),
    ).rejects.toThrow('Check the model name "gemini-9.9-ultra" and the base URL.');
    const env = { GEMINI_API_KEY: KEY, HOOKBOX_GEMINI_BASE_URL: server.baseUrl };
    await expect(
      new GeminiDriver({ env: { ...env, HOOKBOX_GEMINI_MODEL: 'gemini-9.9-ultra' } }).run(
        fakeContext({}),
      ),
    ).rejects.toThrow('Check the model name "gemini-9.9-ultra" (HOOKBOX_GEMINI_MODEL) and');
    await expect(new GeminiDriver({ env }).run(fakeContext({}))).rejects.toThrow(
      'Check the model name "gemini-2.5-flash" (the default; set HOOKBOX_GEMINI_MODEL to change it)',
    );
  });

  it('passes on the retry delay of a 429', async () => {
    const server = await replay([exchange('error-429-resource-exhausted.json')]);
    await expect(driver(server.baseUrl).run(fakeContext({}))).rejects.toThrow(
      'try again later (the API suggests after 38s).',
    );
  });

  it('explains a blocked prompt and a malformed function call', async () => {
    const server = await replay([
      exchange('prompt-blocked.json'),
      exchange('malformed-function-call.json'),
    ]);
    await expect(driver(server.baseUrl).run(fakeContext({}))).rejects.toThrow(
      'Gemini gave no answer: the prompt was blocked (PROHIBITED_CONTENT).',
    );
    await expect(driver(server.baseUrl).run(fakeContext({}))).rejects.toThrow(
      'Gemini stopped without an answer (finishReason MALFORMED_FUNCTION_CALL).',
    );
  });

  it('tells a call the tool refused back to the model instead of failing', async () => {
    const server = await replay([
      exchange('call-list-workspace.json'),
      exchange('answer-after-listing.json', ({ body }) => {
        expect(body.contents.at(-1)?.parts[0]?.functionResponse?.response).toEqual({
          error: 'code_execution: language must be "bash", "python" or "sh"',
        });
      }),
    ]);
    const context = fakeContext({
      answers: [
        () => {
          throw new UserError(
            'invalid_tool_call',
            'code_execution: language must be "bash", "python" or "sh"',
          );
        },
      ],
    });
    await driver(server.baseUrl).run(context);
    expect(context.outputs).toHaveLength(1);
  });

  it('times out a request that gets no answer', async () => {
    const server = await replay([{ ...exchange('text-answer.json'), response: 'hang' }]);
    const error = await driver(server.baseUrl, { timeoutMs: 100 })
      .run(fakeContext({}))
      .catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(SystemError);
    expect((error as SystemError).code).toBe('timeout');
    expect((error as SystemError).message).toBe(
      `The Gemini API at ${server.baseUrl}${PATH} did not answer within 100 ms.`,
    );
  });

  it('stops when the interaction is cancelled', async () => {
    const server = await replay([{ ...exchange('text-answer.json'), response: 'hang' }]);
    const controller = new AbortController();
    const cancelled = new SystemError('timeout', 'interaction deadline');
    void server.received(1).then(() => controller.abort(cancelled));
    await expect(
      driver(server.baseUrl).run(fakeContext({ signal: controller.signal })),
    ).rejects.toBe(cancelled);
  });

  it('takes its model from the agent name or the environment, needs a key and text input', async () => {
    const noKey = new GeminiDriver({ env: {} });
    await expect(noKey.run(fakeContext({ agent: 'gemini' }))).rejects.toThrow(
      'set GEMINI_API_KEY where hookbox runs',
    );
    const fromEnv = new GeminiDriver({
      env: {
        GEMINI_API_KEY: 'k',
        HOOKBOX_GEMINI_MODEL: 'gemini-2.5-pro',
        HOOKBOX_GEMINI_BASE_URL: 'http://x/',
      },
    });
    expect([fromEnv.model, fromEnv.baseUrl]).toEqual(['gemini-2.5-pro', 'http://x']);
    expect(new GeminiDriver({ env: {} }).model).toBe('gemini-2.5-flash');
    expect(createGeminiDriver({ agent: 'gemini-2.5-pro', env: {} }).model).toBe('gemini-2.5-pro');
    expect(createGeminiDriver({ agent: 'models/gemini-2.0-flash', env: {} }).model).toBe(
      'gemini-2.0-flash',
    );
    const antigravity = { agent: 'antigravity-preview-05-2026' };
    expect(createGeminiDriver({ ...antigravity, env: {} }).model).toBe('gemini-2.5-flash');
    expect(
      createGeminiDriver({ ...antigravity, env: { HOOKBOX_GEMINI_MODEL: 'gemini-3-pro-preview' } })
        .model,
    ).toBe('gemini-3-pro-preview');
    const error = await driver('http://127.0.0.1:9')
      .run(fakeContext({ input: [{ type: 'code_execution_call', arguments: { code: 'ls' } }] }))
      .catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(UserError);
    expect((error as UserError).details.field).toBe('input');
  });
});
