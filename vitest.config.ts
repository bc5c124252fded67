import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          sequence: { groupOrder: 0 },
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          // Starts the Docker engine if none answers and builds (or finds cached) the sandbox image.
          globalSetup: ['test/integration/global-setup.ts'],
          testTimeout: 120_000,
          hookTimeout: 180_000,
          // Two cores: a few files at a time keep container start-up from starving the hooks' timers.
          maxWorkers: 2,
          sequence: { groupOrder: 1 },
        },
      },
      {
        test: {
          name: 'engine',
          include: ['test/engine/**/*.test.ts'],
          globalSetup: ['test/integration/global-setup.ts'],
          testTimeout: 240_000,
          hookTimeout: 180_000,
          // Restarts the Docker engine: alone, after everything else.
          maxWorkers: 1,
          sequence: { groupOrder: 2 },
        },
      },
    ],
  },
});
