// The Gemini SDKs, unchanged, against this file's `hookbox serve` (server-helpers.ts): only the base
// URL and the key are set. The JavaScript SDK in this process; the Python SDK (.venv-sdk) as a
// child process whose last stdout line is the JSON it prints.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { GoogleGenAI } from '@google/genai';
import type { RunningServer } from '../../src/server/index.js';

const run = promisify(execFile);

export const PYTHON = join(process.cwd(), '.venv-sdk', 'bin', 'python');

/** The JavaScript SDK for `server` with `key` (its environments' experimental warning is silenced). */
export function jsClient(server: RunningServer, key: string): GoogleGenAI {
  const ai = new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: server.url } });
  const warn = console.warn;
  console.warn = () => {};
  try {
    void ai.environments;
  } finally {
    console.warn = warn;
  }
  return ai;
}

/**
 * Runs `body` (Python, indented by nothing) after `client = genai.Client(...)` for `server` and
 * `key`; returns what it printed last, parsed as JSON. Variables in `env` reach the script.
 */
/** What a script printed, parsed (tests read what they expect). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Printed = any;

export async function runPython(
  server: RunningServer,
  key: string,
  body: string,
  env: Record<string, string> = {},
): Promise<Printed> {
  if (!existsSync(PYTHON))
    throw new Error(`${PYTHON}: the Python SDK's venv is missing (npm run setup makes it)`);
  const script = [
    'import json, os, warnings',
    'warnings.simplefilter("ignore")',
    'from google import genai',
    'client = genai.Client(api_key=os.environ["HB_KEY"], http_options={"base_url": os.environ["HB_URL"]})',
    body,
  ].join('\n');
  const { stdout } = await run(PYTHON, ['-c', script], {
    env: { PATH: process.env.PATH ?? '', HB_KEY: key, HB_URL: server.url, ...env },
    timeout: 120_000,
    maxBuffer: 16 * 1024 * 1024,
  });
  const lines = stdout.trim().split('\n');
  return JSON.parse(lines[lines.length - 1]!);
}
