import { importHooks, importReportText } from '../../hooks/import/import-hooks.js';
import type { CliIo } from '../io.js';

export interface HooksImportOptions {
  out: string;
  json?: boolean;
}

/**
 * `hookbox hooks import FILE --out DIR` (docs/dialects.md, "Import"): exit 0 when the file was
 * imported, even if parts of it could not be carried over (they are listed); 2 for a file that is
 * not a hooks config.
 */
export async function hooksImportCommand(
  file: string,
  options: HooksImportOptions,
  io: CliIo,
): Promise<number> {
  const report = importHooks(file, options.out);
  io.stdout(options.json ? `${JSON.stringify(report, null, 2)}\n` : importReportText(report));
  return 0;
}
