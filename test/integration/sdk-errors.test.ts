// Google's own SDKs, unchanged, against a real `hookbox serve`: with only the base URL and the key
// set, their error objects carry the HTTP status and hookbox's message (docs/contract.md §9).
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { GoogleGenAI } from '@google/genai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiErrorOf } from './api-error.js';

const KEY = 'sdk-errors-test-key';
const PYTHON = resolve('.venv-sdk/bin/python');
let child: ChildProcess | undefined;
let baseUrl = '';

beforeAll(async () => {
  child = spawn('node', [resolve('bin/hookbox.js'), 'serve', '--port', '0', '--no-state'], {
    env: {
      ...process.env,
      HOOKBOX_API_KEYS: KEY,
      HOOKBOX_HOME: mkdtempSync(join(tmpdir(), 'hookbox-sdk-errors-')),
      HOOKBOX_LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  baseUrl = await new Promise<string>((done, fail) => {
    createInterface({ input: child!.stderr! }).on('line', (line) => {
      const url = /listening on (http:\/\/\S+)/.exec(line)?.[1];
      if (url) done(url);
    });
    child!.once('exit', (code) => fail(new Error(`hookbox serve exited ${code}`)));
  });
}, 120_000);

afterAll(async () => {
  if (!child || child.exitCode !== null) return;
  const exited = new Promise((done) => child!.once('exit', done));
  child.kill('SIGTERM');
  await exited;
});

/** What each case should give, whichever SDK sent it. */
const CASES = {
  unknown_interaction: {
    status: 404,
    rpc: 'NOT_FOUND',
    code: 'not_found',
    message: 'id: no interaction "int_nope"',
  },
  bad_request: {
    status: 400,
    rpc: 'INVALID_ARGUMENT',
    code: 'invalid_argument',
    message: 'agent: unknown agent "gpt-9"',
  },
  wrong_key: {
    status: 401,
    rpc: 'UNAUTHENTICATED',
    code: 'unauthenticated',
    message: 'x-goog-api-key: ',
  },
} as const;

describe('@google/genai (JavaScript), base URL and key only', () => {
  const caught = async (call: () => Promise<unknown>) => {
    const error = await call().then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(Error);
    return error as Error & { status?: number; error?: unknown };
  };

  it('an unknown interaction: a NotFoundError with status 404 and the message', async () => {
    const ai = new GoogleGenAI({ apiKey: KEY, httpOptions: { baseUrl } });
    const error = await caught(() => ai.interactions.get('int_nope'));
    const expected = CASES.unknown_interaction;
    expect(error.constructor.name).toBe('NotFoundError');
    expect(error.status).toBe(expected.status);
    expect(error.message).toBe(`404 ${expected.message}`);
    expect(apiErrorOf(error.error)).toMatchObject({
      httpStatus: expected.status,
      status: expected.rpc,
      code: expected.code,
      field: 'id',
    });
  });

  it('a bad request: a BadRequestError with status 400, the field and rule in its body', async () => {
    const ai = new GoogleGenAI({ apiKey: KEY, httpOptions: { baseUrl } });
    const error = await caught(() =>
      ai.interactions.create({ agent: 'gpt-9', input: 'hello' } as never),
    );
    const expected = CASES.bad_request;
    expect(error.constructor.name).toBe('BadRequestError');
    expect(error.status).toBe(expected.status);
    expect(error.message.startsWith(`400 ${expected.message}`)).toBe(true);
    const body = apiErrorOf(error.error);
    expect(body).toMatchObject({ status: expected.rpc, code: expected.code, field: 'agent' });
    expect(body.rule).toMatch(/^unknown agent "gpt-9"/);
  });

  it('a wrong key: an AuthenticationError with status 401', async () => {
    const ai = new GoogleGenAI({ apiKey: 'not-the-key', httpOptions: { baseUrl } });
    const error = await caught(() => ai.interactions.get('int_nope'));
    expect(error.constructor.name).toBe('AuthenticationError');
    expect(error.status).toBe(CASES.wrong_key.status);
    expect(error.message).toContain(CASES.wrong_key.message);
  });
});

// Each case in a fresh client, as a user would write it; prints one JSON line per case.
const PYTHON_SCRIPT = `
import json, os, sys
from google import genai
url, key = os.environ['HOOKBOX_URL'], os.environ['HOOKBOX_KEY']
cases = {
    'unknown_interaction': (key, lambda c: c.interactions.get('int_nope')),
    'bad_request': (key, lambda c: c.interactions.create(agent='gpt-9', input='hello')),
    'wrong_key': ('not-the-key', lambda c: c.interactions.get('int_nope')),
}
for name, (api_key, call) in cases.items():
    client = genai.Client(api_key=api_key, http_options={'base_url': url})
    try:
        call(client)
        print(json.dumps({'case': name, 'raised': None}))
    except Exception as error:
        print(json.dumps({
            'case': name,
            'raised': type(error).__name__,
            'status_code': getattr(error, 'status_code', None),
            'message': str(error),
            'body': getattr(error, 'body', None),
        }))
`;

describe('google-genai (Python), base URL and key only', () => {
  it('404, 400 and 401: the status-code error classes, with the status and the message', async () => {
    const { stdout } = await promisify(execFile)(PYTHON, ['-c', PYTHON_SCRIPT], {
      env: { ...process.env, HOOKBOX_URL: baseUrl, HOOKBOX_KEY: KEY },
      timeout: 120_000,
    });
    const results = Object.fromEntries(
      stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { case: string; [key: string]: unknown })
        .map((result) => [result.case, result]),
    );
    const classes = {
      unknown_interaction: 'NotFoundError',
      bad_request: 'BadRequestError',
      wrong_key: 'AuthenticationError',
    };
    for (const [name, expected] of Object.entries(CASES)) {
      const result = results[name]!;
      expect(result, name).toMatchObject({
        raised: classes[name as keyof typeof classes],
        status_code: expected.status,
      });
      expect(result.message as string, name).toContain(expected.message);
      expect(apiErrorOf(result.body), name).toMatchObject({
        httpStatus: expected.status,
        status: expected.rpc,
        code: expected.code,
      });
    }
  });
});
