// Runs the code blocks of a docs page that are marked `<!-- snippet: NAME -->` (the line before
// the fence), as a reader would: the JavaScript SDK's with node, the Python SDK's with .venv-sdk's
// python, curl's with bash. The page's server and key (http://127.0.0.1:8080, change-me-please)
// become the test server's.
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { RunningServer } from '../../src/server/index.js';
import { PYTHON } from './sdk-helpers.js';

const run = promisify(execFile);

/** The code of the block marked `name` on `page` (a path under docs/), and its language. */
export function snippet(page: string, name: string): { language: string; code: string } {
  const text = readFileSync(join(process.cwd(), 'docs', page), 'utf8');
  const marker = `<!-- snippet: ${name} -->\n`;
  const at = text.indexOf(marker);
  if (at < 0) throw new Error(`docs/${page}: no snippet ${name}`);
  const block = /^```(\w+)\n([\s\S]*?)^```$/m.exec(text.slice(at + marker.length));
  if (!block) throw new Error(`docs/${page}: snippet ${name} has no code block after it`);
  return { language: block[1]!, code: block[2]! };
}

/**
 * Runs the snippet against `server` with `key`; its stdout (a failure throws with its stderr).
 * `replace` maps more of the page's text to the test's (an outside URL to a loopback server's).
 */
export async function runSnippet(
  server: RunningServer,
  key: string,
  page: string,
  name: string,
  replace: Record<string, string> = {},
): Promise<string> {
  const { language, code: raw } = snippet(page, name);
  let code = raw
    .replaceAll('http://127.0.0.1:8080', server.url)
    .replaceAll('change-me-please', key);
  for (const [from, to] of Object.entries(replace)) code = code.replaceAll(from, to);
  const options = { timeout: 180_000, maxBuffer: 16 * 1024 * 1024, cwd: process.cwd() };
  if (language === 'js') {
    // Inside the project, so `import '@google/genai'` resolves to its node_modules.
    const folder = join(process.cwd(), 'node_modules', '.hookbox-doc-snippets');
    mkdirSync(folder, { recursive: true });
    const file = join(folder, `${page.replace(/\W/g, '-')}-${name}.mjs`);
    writeFileSync(file, code);
    return (await run(process.execPath, [file], options)).stdout;
  }
  if (language === 'python') return (await run(PYTHON, ['-c', code], options)).stdout;
  if (language === 'sh')
    return (await run('bash', ['-euo', 'pipefail', '-c', code], options)).stdout;
  throw new Error(`docs/${page}: snippet ${name} is ${language}, which this runner does not run`);
}
