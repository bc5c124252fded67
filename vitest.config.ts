import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // `--coverage` (`npm run test:coverage`, and `.ci/run` for the unit project): V8's own counts,
    // mapped to src/, summarised on stdout and written to coverage/ (README, "Checks").
    coverage: {
      provider: 'v8',
      include: ['src/**/*.ts'],
      reporter: ['text-summary', 'json-summary', 'html'],
      reportsDirectory: 'coverage',
    },
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
          // The hook tests again with prestarted processes off (docs/gates.md, "Prestart and
          // workers"): both ways of running a handler must give the same outcomes.
          name: 'integration-no-prestart',
          include: [
            'test/integration/decisions.test.ts',
            'test/integration/order.test.ts',
            'test/integration/matchers.test.ts',
            'test/integration/tools.test.ts',
            'test/integration/limits-timeout-and-output.test.ts',
            'test/integration/limits-leftover-processes.test.ts',
            'test/integration/limits-pressure.test.ts',
            'test/integration/limits-hook-timeouts.test.ts',
            'test/integration/limits-large-input.test.ts',
            'test/integration/isolation.test.ts',
            'test/integration/privacy-2026-09.test.ts',
          ],
          env: { HOOKBOX_PRESTART: 'off' },
          globalSetup: ['test/integration/global-setup.ts'],
          testTimeout: 120_000,
          hookTimeout: 180_000,
          maxWorkers: 2,
          sequence: { groupOrder: 2 },
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
          sequence: { groupOrder: 3 },
        },
      },
    ],
  },
});
