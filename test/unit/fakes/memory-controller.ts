/**
 * A real Controller over the in-memory container client (docs/testing.md, "The fast tier"): the
 * controller, its environments, the call pipeline and the interaction service unchanged, with no
 * engine, image, disk or network behind them.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Controller } from '../../../src/controller/controller.js';
import type { ControllerOptions } from '../../../src/controller/controller-options.js';
import { createLogger } from '../../../src/record/logger.js';
import { backendOf } from '../../../src/sandbox/backend.js';
import type { MemoryAgentOptions } from './memory-agent.js';
import { MemoryContainerClient } from './memory-container-client.js';

/** The image tag the in-memory engine "has". */
export const MEMORY_IMAGE = 'hookbox-sandbox:memory';

export async function memoryController(
  agent: MemoryAgentOptions = {},
  options: ControllerOptions = {},
): Promise<{ controller: Controller; client: MemoryContainerClient; close(): Promise<void> }> {
  const home = mkdtempSync(join(tmpdir(), 'hookbox-fast-'));
  const client = new MemoryContainerClient(() => agent, [MEMORY_IMAGE]);
  const controller = await Controller.start({
    backend: backendOf('memory', client),
    logger: createLogger({ level: 'silent' }),
    home,
    image: MEMORY_IMAGE,
    startEngine: false,
    reapOrphansOnStart: false,
    ...options,
  });
  return {
    controller,
    client,
    close: async () => {
      await controller.close();
      rmSync(home, { recursive: true, force: true });
    },
  };
}
