// Before the integration tests: a Docker engine that answers (started if need be) and the sandbox
// image (built, or found cached). Tests never skip for want of Docker.
import { execa } from 'execa';
import { defaultLogger } from '../../src/record/logger.js';
import { DockerContainerClient } from '../../src/backends/docker/docker-container-client.js';
import { ensureEngine } from '../../src/backends/docker/engine.js';
import { ensureImage } from '../../src/sandbox/image.js';

export default async function setup(): Promise<void> {
  // Tests that spawn the CLI or a second controller process run the compiled code.
  // Type errors are CI's typecheck step's business; tsc still emits, which is all the tests need.
  await execa('npx', ['tsc', '-p', 'tsconfig.build.json'], { reject: false });
  const logger = defaultLogger();
  const client = new DockerContainerClient(logger);
  await ensureEngine(client, { quiet: true });
  await ensureImage(client, logger, {
    // Stages only: a build's every step would flood the test log.
    onProgress: (message, kind) => {
      if (kind !== 'step') process.stderr.write(`[hookbox] ${message}\n`);
    },
  });
}
