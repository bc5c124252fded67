import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { main } from '../../src/cli/main.js';
import { defaultLogger } from '../../src/record/logger.js';
import { DockerContainerClient } from '../../src/backends/docker/docker-container-client.js';
import { LABEL_CONTROLLER_PID, LABEL_MANAGED } from '../../src/sandbox/labels.js';

/** Runs the CLI in this process and captures what it prints. */
export async function cli(
  ...argv: string[]
): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, {
    stdout: (t) => (stdout += t),
    stderr: (t) => (stderr += t),
    isTty: false,
  });
  return { code, stdout, stderr };
}

/** A sources folder made of the given files (path relative to the folder → content). */
export function sourcesDir(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'hookbox-sources-'));
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  return dir;
}

const client = new DockerContainerClient(defaultLogger());

/** Containers and volumes made by controllers in this process (other test files run in others). */
export async function ownResources(): Promise<{ containers: number; volumes: number }> {
  const filter = [`${LABEL_MANAGED}=true`, `${LABEL_CONTROLLER_PID}=${process.pid}`];
  const [containers, volumes] = await Promise.all([
    client.listContainers(filter),
    client.listVolumes(filter),
  ]);
  return { containers: containers.length, volumes: volumes.length };
}

/** The security gate of the Gemini hooks page, as shipped in examples/security-gate. */
const EXAMPLE = join(process.cwd(), 'examples', 'security-gate', '.agents');
export const GEMINI_HOOKS = readFileSync(join(EXAMPLE, 'hooks.json'), 'utf8');
export const GEMINI_GATE = readFileSync(join(EXAMPLE, 'hooks-scripts', 'gate.py'), 'utf8');
