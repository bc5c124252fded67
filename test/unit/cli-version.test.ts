import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';

describe('hookbox --version', () => {
  it("prints package.json's version and exits 0", async () => {
    let out = '';
    const io = { stdout: (text: string) => (out += text), stderr: () => {}, isTty: false };
    const { version } = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
    expect(await main(['--version'], io)).toBe(0);
    expect(out.trim()).toBe(version);
  });
});
