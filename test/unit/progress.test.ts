// Progress lines of long commands (src/cli/progress.ts): shown in a terminal only, never with
// --json or in CI; image builds keep their stages as lines in logs.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { CliIo } from '../../src/cli/io.js';
import { buildProgressFor, createProgress, progressWanted } from '../../src/cli/progress.js';

function io(tty: boolean): CliIo & { err: string[] } {
  const err: string[] = [];
  return { stdout: () => {}, stderr: (text) => err.push(text), isTty: tty, stderrIsTty: tty, err };
}

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('progress', () => {
  it('is wanted only on a terminal, without --json, outside CI', () => {
    expect(progressWanted(io(true), {}, {})).toBe(true);
    expect(progressWanted(io(false), {}, {})).toBe(false);
    expect(progressWanted(io(true), { json: true }, {})).toBe(false);
    expect(progressWanted(io(true), {}, { CI: 'true' })).toBe(false);
    expect(progressWanted(io(true), {}, { CI: 'false' })).toBe(true);
  });

  it('prints nothing at all when not wanted', () => {
    vi.stubEnv('CI', '');
    const quiet = io(true);
    const progress = createProgress(quiet, { json: true });
    progress.update('[1/3] 0 failed');
    progress.note('FAIL a › b');
    progress.done();
    expect(progress.live).toBe(false);
    expect(quiet.err).toEqual([]);
  });

  it('rewrites one line with the time elapsed, keeps notes, and clears the line when done', () => {
    vi.stubEnv('CI', '');
    const terminal = io(true);
    const progress = createProgress(terminal);
    progress.update('[1/3] 0 failed');
    progress.note('FAIL a › b');
    progress.update('[2/3] 1 failed');
    progress.done();
    const text = terminal.err.join('');
    expect(text).toContain('\r\x1b[2K[1/3] 0 failed · 0s');
    expect(text).toContain('FAIL a › b\n');
    expect(text).toContain('[2/3] 1 failed · 0s');
    expect(text.endsWith('\r\x1b[2K')).toBe(true);
  });

  it('outside a terminal each stage is a line with the time elapsed; nothing with --json', () => {
    vi.stubEnv('CI', '');
    const log = io(false);
    const progress = createProgress(log);
    progress.stage('[1/2] 0 failed · pass fx › a');
    progress.stage('[2/2] 1 failed · FAIL fx › b');
    expect(log.err).toEqual([
      '[1/2] 0 failed · pass fx › a · 0s\n',
      '[2/2] 1 failed · FAIL fx › b · 0s\n',
    ]);
    const json = io(false);
    createProgress(json, { json: true }).stage('[1/2] 0 failed');
    expect(json.err).toEqual([]);
  });

  it('an image build shows its steps on the line in a terminal, and as lines in a log', () => {
    vi.stubEnv('CI', '');
    const log = io(false);
    const toLog = buildProgressFor(log, createProgress(log));
    toLog('building sandbox image hookbox/sandbox:abc');
    toLog('Step 1/9 : FROM base', 'step');
    expect(log.err).toEqual([
      'building sandbox image hookbox/sandbox:abc\n',
      'building sandbox image hookbox/sandbox:abc: Step 1/9 : FROM base\n',
    ]);

    const terminal = io(true);
    const progress = createProgress(terminal);
    const toTerminal = buildProgressFor(terminal, progress);
    toTerminal('building sandbox image hookbox/sandbox:abc');
    toTerminal('Step 1/9 : FROM base', 'step');
    progress.done();
    expect(terminal.err.join('')).toContain(
      'building sandbox image hookbox/sandbox:abc: Step 1/9 : FROM base · 0s',
    );
  });
});
