/** Where a command writes: the process's streams, or buffers in tests. */
export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** Whether stdout is a terminal (progress lines only then). */
  isTty: boolean;
  /** Whether stderr is a terminal (progress lines go there). @default isTty */
  stderrIsTty?: boolean;
}

export const processIo: CliIo = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  isTty: Boolean(process.stdout.isTTY),
  stderrIsTty: Boolean(process.stderr.isTTY),
};
