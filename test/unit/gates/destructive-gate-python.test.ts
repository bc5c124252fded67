/**
 * The destructive gate's own Python tests (hooks-scripts/destructive/tests: module unit tests and the
 * property test of its shell parser against bash) run with the host's python3, as `npm run
 * test:gates` does, so that they count in the suite (docs/gates.md, Tests).
 */
import { execa } from 'execa';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const GATE_DIR = fileURLToPath(new URL('../../../hooks-scripts/destructive', import.meta.url));

describe('the destructive gate package', () => {
  it('passes its unittest suite, the bash-oracle property test (2,000 commands) included', async () => {
    const run = await execa(
      'python3',
      ['-m', 'unittest', 'discover', '-s', 'tests', '-t', '.', '-v'],
      {
        cwd: GATE_DIR,
        reject: false,
        all: true,
        env: { PYTHONDONTWRITEBYTECODE: '1', GATE_PROPERTY_COUNT: '2000' },
        timeout: 240_000,
      },
    );
    const output = run.all ?? '';
    expect(output, output.slice(-4000)).toMatch(/\nOK/);
    expect(run.exitCode, output.slice(-4000)).toBe(0);
    // The property test ran, on at least 2,000 commands, with no mismatch.
    expect(output).toMatch(/seed \d+, (\d{4,}) commands, \d+ fully resolved, 0 mismatches/);
    const count = Number(/seed \d+, (\d+) commands/.exec(output)?.[1]);
    expect(count).toBeGreaterThanOrEqual(2000);
  }, 300_000);
});
