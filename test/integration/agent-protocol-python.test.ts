/**
 * The sandbox agent's own Python tests (test/agent: its real answers, from a container of the
 * sandbox image, checked against sandbox-image/agent/protocol.schema.json) run with Debian's
 * python3 and python3-jsonschema, as `npm run test:agent` does, so that they count in the suite
 * (docs/agent-protocol.md, Tests).
 */
import { execa } from 'execa';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { imageTags } from '../../src/sandbox/image.js';

const TESTS_DIR = fileURLToPath(new URL('../agent', import.meta.url));

describe('the sandbox agent', () => {
  it('answers every operation of the protocol as its JSON Schema says', async () => {
    const run = await execa('/usr/bin/python3', ['-m', 'unittest', '-v', 'test_agent_protocol'], {
      cwd: TESTS_DIR,
      reject: false,
      all: true,
      env: { PYTHONDONTWRITEBYTECODE: '1', HOOKBOX_SANDBOX_IMAGE: imageTags().sandbox },
      timeout: 180_000,
    });
    const output = run.all ?? '';
    expect(output, output.slice(-4000)).toMatch(/\nOK\n?$/);
    expect(run.exitCode, output.slice(-4000)).toBe(0);
    expect(output).toMatch(/Ran [7-9] tests|Ran \d{2,} tests/);
  }, 200_000);
});
