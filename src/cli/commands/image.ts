import { Controller } from '../../environments/controller.js';
import type { CliIo } from '../io.js';

/** `hookbox image build`: builds (or finds cached) the sandbox image `hookbox/sandbox:<tag>`. */
export async function imageBuildCommand(io: CliIo): Promise<number> {
  const controller = await Controller.start({ onProgress: (message) => io.stderr(`${message}\n`) });
  io.stdout(`${controller.image}\n`);
  return 0;
}
