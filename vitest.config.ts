import { defineConfig } from 'vitest/config';

/**
 * Three tiers: `unit` (pure domain rules, no I/O), `integration` (HTTP and SDK calls through
 * one local cloud started by globalSetup), `infra` (CDK Template assertions and cdk-nag).
 */
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          environment: 'node',
          setupFiles: ['test/support/cleanup.ts'],
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          environment: 'node',
          setupFiles: ['test/support/cleanup.ts'],
          globalSetup: ['test/support/global-setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 120_000,
          // One local cloud serves every file; files run in parallel against it.
          fileParallelism: true,
        },
      },
      {
        test: {
          // Attack and fault suite (authorization matrix, hostile bodies, canary secrets, crash
          // and restart, load) against its own local cloud; some files start further clouds.
          name: 'hardening',
          include: ['test/hardening/**/*.test.ts'],
          environment: 'node',
          setupFiles: ['test/support/cleanup.ts'],
          globalSetup: ['test/support/global-setup.ts'],
          testTimeout: 150_000,
          hookTimeout: 150_000,
          fileParallelism: true,
        },
      },
      {
        test: {
          // The console in real Chromium against its own local cloud (one browser, files in series).
          name: 'browser',
          include: ['test/browser/**/*.test.ts'],
          environment: 'node',
          setupFiles: ['test/support/cleanup.ts'],
          globalSetup: ['test/support/global-setup.ts'],
          testTimeout: 90_000,
          hookTimeout: 120_000,
          // expect.poll waits for what the screen shows after an API call; its 1 s default is a
          // deadline sized for a quiet machine (two scripts generated under CI load took longer).
          // 30 s only guards against a hang.
          expect: { poll: { timeout: 30_000 } },
          fileParallelism: false,
        },
      },
      {
        test: {
          name: 'infra',
          include: ['test/infra/**/*.test.ts'],
          environment: 'node',
          setupFiles: ['test/support/cleanup.ts'],
          testTimeout: 180_000,
          hookTimeout: 180_000,
        },
      },
    ],
  },
});
