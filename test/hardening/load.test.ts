/**
 * Load: 50 concurrent clients mix reads and writes against a local cloud until they have sent
 * 800 requests between them (HARDENING_LOAD_REQUESTS to change it). No answer may be a 5xx, and
 * every write that was answered 2xx must be readable afterwards (deleted webhooks must be gone).
 * A correctness run under concurrency, sized by work, not time: the 60 s soak of the same mix is
 * figure 15 of `npm run bench`. On a local cloud of this file's own, so that the load lands on
 * nothing else the tier's files are doing.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminKey, baseUrl, createKey, logFile, useOwnCloud } from '../support/api';
import { type RunningCloud, startCloudProcess } from '../support/local-cloud-process';
import { runLoad } from './load-mix';

const CLIENTS = 50;
const REQUESTS = Number(process.env.HARDENING_LOAD_REQUESTS ?? 800);

/** The ERROR lines the cloud logged. */
function cloudErrors(): string[] {
  return readFileSync(logFile(), 'utf8')
    .split('\n')
    .filter((line) => line.includes('"level":"ERROR"'))
    .map((line) => line.slice(0, 600));
}

let cloud: RunningCloud | undefined;
let userKeys: string[] = [];

beforeAll(async () => {
  cloud = await startCloudProcess();
  useOwnCloud(cloud);
  const users = await Promise.all(Array.from({ length: CLIENTS - 5 }, (_, i) => createKey(`load-${i}`)));
  userKeys = users.map((u) => u.apiKey);
});
afterAll(async () => {
  await cloud?.stop();
});

describe(`load: ${CLIENTS} clients, ${REQUESTS} requests`, () => {
  it('answers no 5xx and loses no acknowledged write', async () => {
    // Five more clients use the admin key.
    const outcome = await runLoad({ base: baseUrl(), adminKey: adminKey(), userKeys, requests: REQUESTS });
    const total = [...outcome.statuses.values()].reduce((a, b) => a + b, 0);
    expect(total).toBeGreaterThan(CLIENTS * 5);
    // The cloud's own account of each 5xx (its error log lines), so a failure says why.
    const causes = outcome.serverErrors.length > 0 ? cloudErrors() : [];
    expect(outcome.serverErrors.slice(0, 10), causes.slice(0, 10).join('\n')).toEqual([]);
    expect(outcome.created).toBeGreaterThan(CLIENTS);
    expect(outcome.lost).toEqual([]);
  });
});
