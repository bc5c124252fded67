// The Gemini SDKs, unchanged, against a real `hookbox serve` (docs/gemini-sdks.md): only the base
// URL and the key are set. The JavaScript SDK in this process; the Python SDK (.venv-sdk) as a
// child process: a snippet whose last stdout line is the JSON it prints, or a scenario of
// test/sdk/interactions_sdk.py.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { GoogleGenAI } from '@google/genai';
import type { RunningServer } from '../../src/server/index.js';
import { API_KEY } from './api-helpers.js';

const run = promisify(execFile);

export const PYTHON = join(process.cwd(), '.venv-sdk', 'bin', 'python');
const SCENARIOS = join(process.cwd(), 'test', 'sdk', 'interactions_sdk.py');

/** The JavaScript SDK for `server` with `key` (its environments' experimental warning is silenced). */
export function jsClient(server: RunningServer, key: string = API_KEY): GoogleGenAI {
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
export async function runPython<Printed>(
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
  return JSON.parse(lines[lines.length - 1]!) as Printed;
}

/** Runs one scenario of the Python script; its JSON answer, and what it wrote to stderr. */
export function runPythonScenario<Printed>(
  server: RunningServer,
  scenario: string,
): Promise<{ result: Printed; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(
      PYTHON,
      ['-W', 'always', SCENARIOS, scenario],
      { env: { ...process.env, HOOKBOX_URL: server.url, HOOKBOX_KEY: API_KEY }, timeout: 120_000 },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`${scenario}: ${error.message}\n${stderr}`));
        else resolve({ result: JSON.parse(stdout) as Printed, stderr });
      },
    );
  });
}

/** The hooks page's security gate: a pre hook that blocks `rm -rf` in code_execution. */
export const SECURITY_GATE_SOURCES = [
  {
    type: 'inline' as const,
    target: '.agents/hooks.json',
    content:
      '{"security-gate": {"pre_tool_execution": [{"matcher": "code_execution", "hooks": [{"type": "command", "command": "python3 /.agents/hooks-scripts/gate.py", "timeout": 10}]}]}}',
  },
  {
    type: 'inline' as const,
    target: '.agents/hooks-scripts/gate.py',
    content:
      '#!/usr/bin/env python3\nimport sys, json\ndata = json.load(sys.stdin)\ncmd = str(data.get("tool_call", {}).get("args", {}))\nif "rm -rf" in cmd:\n    print(json.dumps({"decision": "deny", "reason": "Destructive command blocked by security gate."}))\nelse:\n    print(json.dumps({"decision": "allow"}))\n',
  },
];
