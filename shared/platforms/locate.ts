/**
 * Answering a `locate` (ADR 0016) for many paths: a few at a time, each path's own check bounded
 * by the connector's timeouts, and the whole bounded by a deadline inside the connector
 * function's time, so a slow remote makes paths "could not check", never a timed-out function.
 */
import { intEnv } from '../config/env';
import type { LocatedPath } from './port';

const CONCURRENCY = 8;
const deadlineMs = () => intEnv('LOCATE_DEADLINE_MS', 20_000);

export async function locateEach(
  paths: readonly string[],
  check: (path: string) => Promise<LocatedPath>,
): Promise<LocatedPath[]> {
  const results = new Map<string, LocatedPath>();
  const queue = [...new Set(paths)];
  const workers = Array.from({ length: Math.min(CONCURRENCY, queue.length) }, async () => {
    for (let path = queue.shift(); path !== undefined; path = queue.shift()) {
      const at = path;
      results.set(
        at,
        await check(at).catch((error: unknown) => ({
          path: at,
          error: `could not check ${at} (${error instanceof Error ? error.name : 'error'})`,
        })),
      );
    }
  });
  let timer: NodeJS.Timeout | undefined;
  const seconds = Math.round(deadlineMs() / 1000);
  await Promise.race([
    Promise.all(workers),
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, deadlineMs());
    }),
  ]);
  clearTimeout(timer);
  return paths.map(
    (path) =>
      results.get(path) ?? {
        path,
        error: `could not check ${path}: the remote did not answer within ${seconds} s`,
      },
  );
}
