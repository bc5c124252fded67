// Shared by the vocabulary-2026-09-*.test.ts files: a batch of calls through
// `hookbox call --calls … --json`, in real containers, and hooks.json helpers.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { cli, sourcesDir } from './cli-helpers.js';

export interface Outcome {
  environment_id: string;
  tool_call: { name: string; args: Record<string, unknown> };
  blocked: boolean;
  reason: string | null;
  result: Record<string, unknown> | null;
  hooks: { group: string; event: string; outcome: string; reason: string | null }[];
}
export type Call = { name: string; args: Record<string, unknown> };

/** Runs a batch of calls in one environment made from `files`; every call's outcome, in order. */
export async function batch(
  files: Record<string, string>,
  calls: Call[],
  ...options: string[]
): Promise<Outcome[]> {
  const callsFile = join(mkdtempSync(join(tmpdir(), 'hookbox-calls-')), 'calls.json');
  writeFileSync(callsFile, JSON.stringify(calls));
  const argv = ['call', '--sources', sourcesDir(files), '--calls', callsFile, '--json', ...options];
  const { code, stdout, stderr } = await cli(...argv);
  expect(code, stderr).toBe(0);
  return JSON.parse(stdout) as Outcome[];
}

export const v09 = ['--vocabulary', '2026-09'];
export const hooksJson = (config: unknown) => JSON.stringify(config, null, 2);
export const command = (matcher: string, cmd: string) => ({
  matcher,
  hooks: [{ type: 'command', command: cmd }],
});
