import { Controller } from '../../controller/controller.js';
import type { CliIo } from '../io.js';
import { buildProgressFor, createProgress } from '../progress.js';

/** `hookbox image build`: builds (or finds cached) the sandbox image `hookbox/sandbox:<tag>`. */
export async function imageBuildCommand(io: CliIo): Promise<number> {
  const progress = createProgress(io);
  try {
    const controller = await Controller.start({ onProgress: buildProgressFor(io, progress) });
    progress.done();
    io.stdout(`${controller.image}\n`);
  } finally {
    progress.done();
  }
  return 0;
}
