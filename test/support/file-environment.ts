/**
 * The vm pools (`vmForks`: the integration and hardening tiers, vitest.config.ts) run a worker's
 * files one after another in one process, each file in fresh module contexts but with the one
 * `process`: a file that writes `process.env` (`useLocalCloudEnv`, a driver test's credentials)
 * would hand its values to the next file, as a fork per file never did. This gives every file
 * the environment it started with: when it ends, each variable it added is removed and each one
 * it changed or removed is set back. Its `afterAll` is registered before the file's own, so it
 * runs after them (after the file's cloud has stopped).
 */
import { afterAll } from 'vitest';

const initial: Record<string, string | undefined> = { ...process.env };

afterAll(() => {
  for (const name of Object.keys(process.env)) if (!(name in initial)) delete process.env[name];
  Object.assign(process.env, initial);
});
