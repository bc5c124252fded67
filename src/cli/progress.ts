import type { CliIo } from './io.js';

/**
 * Progress of a long command (image builds, `hookbox test`, `hookbox gc`): in a terminal, one line
 * on stderr rewritten in place with the time elapsed. Elsewhere (CI, a log, a pipe) each stage is a
 * line of its own, so a long job is never silent; with `--json` nothing (docs/console.md, "Progress
 * in the terminal").
 */
export interface Progress {
  /** Whether anything is shown at all. */
  readonly live: boolean;
  /** Replaces what the line says (the elapsed time is added). */
  update(text: string): void;
  /** Prints a line that stays (above the progress line). */
  note(text: string): void;
  /**
   * A stage reached: on the line in a terminal, a line of its own (with the time elapsed) in a log;
   * nothing with `--json`.
   */
  stage(text: string): void;
  /** Clears the line and stops the clock. */
  done(): void;
}

/** Whether progress is shown for this invocation. */
export function progressWanted(
  io: CliIo,
  options: { json?: boolean } = {},
  env: Record<string, string | undefined> = process.env,
): boolean {
  const ci = env.CI !== undefined && env.CI !== '' && env.CI !== 'false' && env.CI !== '0';
  return (io.stderrIsTty ?? io.isTty) && !options.json && !ci;
}

const elapsed = (startedMs: number) => {
  const seconds = Math.floor((Date.now() - startedMs) / 1000);
  return seconds < 60 ? `${seconds}s` : `${Math.floor(seconds / 60)}m${seconds % 60}s`;
};

/** A progress line on `io.stderr`; inert when progress is not wanted. */
export function createProgress(io: CliIo, options: { json?: boolean } = {}): Progress {
  const started = Date.now();
  if (!progressWanted(io, options)) {
    return {
      live: false,
      update: () => {},
      note: () => {},
      stage: (text) => {
        if (!options.json) io.stderr(`${text} · ${elapsed(started)}\n`);
      },
      done: () => {},
    };
  }
  const width = () => Math.max(40, (process.stderr.columns ?? 100) - 1);
  let text = '';
  let shown = false;
  const draw = () => {
    if (!text) return;
    const line = `${text} · ${elapsed(started)}`;
    io.stderr(`\r\x1b[2K${line.length > width() ? `${line.slice(0, width() - 1)}…` : line}`);
    shown = true;
  };
  const clear = () => {
    if (shown) io.stderr('\r\x1b[2K');
    shown = false;
  };
  // The clock moves even when nothing else does (a debootstrap minute), so it is seen to be alive.
  const ticker = setInterval(draw, 1000);
  ticker.unref();
  return {
    live: true,
    update(next) {
      text = next;
      draw();
    },
    note(line) {
      clear();
      io.stderr(`${line}\n`);
      draw();
    },
    stage(next) {
      text = next;
      draw();
    },
    done() {
      clearInterval(ticker);
      clear();
      text = '';
    },
  };
}

/**
 * The callback an image build reports to: in a terminal, the stage and its current step on the
 * progress line (each stage also stays as a line); elsewhere the stages and their steps, each a line
 * on stderr (what a log needs to show why a first start takes a minute, and that it is alive).
 */
export function buildProgressFor(
  io: CliIo,
  progress: Progress,
): (message: string, kind?: 'stage' | 'step') => void {
  let stage = '';
  return (message, kind = 'stage') => {
    if (kind === 'stage') {
      stage = message;
      if (progress.live) {
        progress.note(message);
        progress.update(message);
      } else io.stderr(`${message}\n`);
    } else {
      const line = stage ? `${stage.split(' (')[0]}: ${message}` : message;
      if (progress.live) progress.update(line);
      else io.stderr(`${line}\n`);
    }
  };
}
