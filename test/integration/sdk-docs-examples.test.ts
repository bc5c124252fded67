// docs/gemini-sdks.md's examples, as the page gives them, run against a real `hookbox serve`: the
// JavaScript one with node, the Python one with the SDK in .venv-sdk, the curl one with bash.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { API_KEY, useServer } from './api-helpers.js';
import { PYTHON } from './sdk-helpers.js';

const server = useServer();
const PAGE = readFileSync('docs/gemini-sdks.md', 'utf8');
const EXPECTED = 'blocked: Destructive command blocked by security gate.\nran: hello\n';

function block(language: string): string {
  const match = new RegExp('```' + language + '\\n([\\s\\S]*?)```').exec(PAGE);
  if (!match) throw new Error(`docs/gemini-sdks.md has no ${language} block`);
  return match[1]!;
}

function run(command: string, args: string[]): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) =>
    execFile(
      command,
      args,
      {
        env: { ...process.env, HOOKBOX_URL: server().url, HOOKBOX_API_KEY: API_KEY },
        timeout: 120_000,
      },
      (error, stdout, stderr) =>
        error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve({ stdout, stderr }),
    ),
  );
}

describe('docs/gemini-sdks.md', () => {
  it('the JavaScript example prints what the page says', async () => {
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', block('js')]);
    expect(stdout).toBe(EXPECTED);
  });

  it('the Python example prints what the page says, without a warning', async () => {
    const { stdout, stderr } = await run(PYTHON, ['-W', 'always', '-c', block('python')]);
    expect([stdout, stderr]).toEqual([EXPECTED, '']);
  });

  it('the curl example prints what the page says', async () => {
    const { stdout } = await run('bash', ['-c', block('bash')]);
    expect(stdout).toBe(EXPECTED);
  });
});
