import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { SHARED_STAGE_SETTINGS } from './test/support/suite-settings';
import { UNIT_ISOLATED_FILES } from './test/support/unit-isolation';

/**
 * The tiers: `unit` (pure domain rules, no I/O), `integration` (HTTP and SDK calls through one
 * local cloud started by globalSetup), `hardening` (attacks and faults), `browser` (the console
 * in Chromium), `infra` (CDK Template assertions and cdk-nag).
 *
 * Files of every tier run side by side, this many at a time (vitest's default on two cores is
 * one): most of an integration, hardening or browser file's time is spent waiting for its cloud
 * (deliveries, retry delays, workflows, restarts), and the files share nothing mutable on a
 * tier's cloud — each has principals, hosts and webhooks of its own, and a file whose load would
 * hold up the others starts a cloud of its own.
 */
const SIDE_BY_SIDE = 4;

/**
 * With files side by side, a long file that starts late decides when the run ends. Vitest's own
 * order goes tier by tier (by name) and, in a tier, by the previous run's durations or, in a
 * fresh clone as CI runs, by file size, which put the integration tier's two bulk files behind a
 * hundred others. These start first, in this order (they start clouds of their own, restart one,
 * or send thousands of requests); every other file keeps vitest's order behind them.
 */
const LONGEST_FIRST = [
  'test/hardening/bad-input.test.ts',
  'test/integration/webhooks/recover.test.ts',
  'test/integration/webhooks/accounting.test.ts',
  'test/hardening/assurance-schedule.test.ts',
  'test/browser/webhooks.test.ts',
  'test/browser/accessibility.test.ts',
  'test/hardening/crash-restart.test.ts',
  'test/hardening/crash-webhooks.test.ts',
  'test/hardening/crash-compensation.test.ts',
  'test/infra/stack.test.ts',
  'test/infra/bundles.test.ts',
];

class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (spec: TestSpecification) => {
      const at = LONGEST_FIRST.findIndex((file) => spec.moduleId.endsWith(file));
      return at < 0 ? LONGEST_FIRST.length : at;
    };
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
  }
}

/**
 * What the tiers with a local cloud (integration, hardening, browser) share: the cloud started by
 * globalSetup, and its stage settings in the workers too (test/support/suite-settings.ts), so
 * records a worker writes in-process are laid out as its cloud's.
 */
const ON_A_CLOUD: {
  environment: 'node';
  setupFiles: string[];
  globalSetup: string[];
  env: Record<string, string>;
} = {
  environment: 'node',
  setupFiles: ['test/support/cleanup.ts'],
  globalSetup: ['test/support/global-setup.ts'],
  env: { ...SHARED_STAGE_SETTINGS },
};

/**
 * How the integration and hardening tiers isolate their files: each file in fresh module contexts
 * (`vmForks`) inside a worker process that runs file after file, instead of a process forked per
 * file. Its modules are as isolated as before (each file imports every module afresh, so the
 * shared modules build their SDK clients from that file's environment); what the files share is
 * the process, and so `process.env`, which test/support/file-environment.ts gives back to each
 * file as it found it. The integration tier alone, back to back: 521 -> 457 CPU-seconds and
 * 291 -> 262 s (its workers 127 -> 78 CPU-seconds: 69 forks started and loaded vitest, the SDK and
 * the test support before; 5 processes now). A worker whose heap passes `vmMemoryLimit` after a
 * file is replaced by a fresh one (the hostile-body file turns over gigabytes of strings).
 */
const IN_VM_CONTEXTS: { pool: 'vmForks'; vmMemoryLimit: string; setupFiles: string[] } = {
  pool: 'vmForks',
  vmMemoryLimit: '1GB',
  setupFiles: [...ON_A_CLOUD.setupFiles, 'test/support/file-environment.ts'],
};

export default defineConfig({
  test: {
    // The files that take longest start first.
    sequence: { sequencer: LongestFirst },
    projects: [
      {
        test: {
          // Pure domain rules: a worker's files share its modules (zod, the catalog, the SDK are
          // imported once per worker, not once per file). The files that mock, spy, stub or write
          // process.env are `unit-isolated` below (test/support/unit-isolation.ts).
          name: 'unit',
          maxWorkers: SIDE_BY_SIDE,
          include: ['test/unit/**/*.test.ts'],
          exclude: [...UNIT_ISOLATED_FILES],
          isolate: false,
          environment: 'node',
          setupFiles: ['test/support/cleanup.ts'],
        },
      },
      {
        test: {
          name: 'unit-isolated',
          maxWorkers: SIDE_BY_SIDE,
          include: [...UNIT_ISOLATED_FILES],
          environment: 'node',
          setupFiles: ['test/support/cleanup.ts'],
        },
      },
      {
        test: {
          name: 'integration',
          maxWorkers: SIDE_BY_SIDE,
          include: ['test/integration/**/*.test.ts'],
          ...ON_A_CLOUD,
          ...IN_VM_CONTEXTS,
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
      {
        test: {
          // Attack and fault suite (authorization matrix, hostile bodies, canary secrets, crash
          // and restart, load) against its own local cloud; some files start further clouds.
          name: 'hardening',
          maxWorkers: SIDE_BY_SIDE,
          include: ['test/hardening/**/*.test.ts'],
          ...ON_A_CLOUD,
          ...IN_VM_CONTEXTS,
          testTimeout: 150_000,
          hookTimeout: 150_000,
        },
      },
      {
        test: {
          // The console in real Chromium against its own local cloud. A worker's files share its
          // modules and so its Chromium (`launchBrowser` in test/support/browser.ts), one file
          // after another, each in browser contexts of its own; the files use the tier's cloud
          // only, and write no process.env but the cloud's (the same for every file).
          name: 'browser',
          maxWorkers: SIDE_BY_SIDE,
          isolate: false,
          include: ['test/browser/**/*.test.ts'],
          ...ON_A_CLOUD,
          testTimeout: 90_000,
          hookTimeout: 120_000,
          // expect.poll waits for what the screen shows after an API call; its 1 s default is a
          // deadline sized for a quiet machine (two scripts generated under CI load took longer).
          // 30 s only guards against a hang.
          expect: { poll: { timeout: 30_000 } },
        },
      },
      {
        test: {
          name: 'infra',
          maxWorkers: SIDE_BY_SIDE,
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
