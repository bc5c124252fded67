// The Gemini SDKs, unchanged, against a real `hookbox serve` (docs/gemini-sdks.md): only the base
// URL and the key are set. JavaScript in this process; Python in .venv-sdk, running
// test/sdk/interactions_sdk.py.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { GoogleGenAI } from '@google/genai';
import type { RunningServer } from '../../src/server/index.js';
import { API_KEY } from './api-helpers.js';

export const PYTHON = join(process.cwd(), '.venv-sdk', 'bin', 'python');
const SCRIPT = join(process.cwd(), 'test', 'sdk', 'interactions_sdk.py');

export function jsClient(server: RunningServer): GoogleGenAI {
  return new GoogleGenAI({ apiKey: API_KEY, httpOptions: { baseUrl: server.url } });
}

/** Runs one scenario of the Python script; its JSON answer, and what it wrote to stderr. */
export function runPython(
  server: RunningServer,
  scenario: string,
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
): Promise<{ result: any; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(
      PYTHON,
      ['-W', 'always', SCRIPT, scenario],
      { env: { ...process.env, HOOKBOX_URL: server.url, HOOKBOX_KEY: API_KEY }, timeout: 120_000 },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`${scenario}: ${error.message}\n${stderr}`));
        else resolve({ result: JSON.parse(stdout) as unknown, stderr });
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
