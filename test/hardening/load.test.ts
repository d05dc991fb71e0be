/**
 * Load: 50 concurrent clients mix reads and writes against the suite's local cloud until they
 * have sent 800 requests between them (HARDENING_LOAD_REQUESTS to change it). No answer may be a
 * 5xx, and every write that was answered 2xx must be readable afterwards (deleted webhooks must
 * be gone). A correctness run under concurrency, sized by work, not time: the 60 s soak of the
 * same mix is figure 15 of `npm run bench`.
 */
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { adminKey, baseUrl, createKey } from '../support/api';
import { runLoad } from './load-mix';

const CLIENTS = 50;
const REQUESTS = Number(process.env.HARDENING_LOAD_REQUESTS ?? 800);

/** The ERROR lines the suite's cloud logged. */
function cloudErrors(): string[] {
  return readFileSync(inject('logFile'), 'utf8')
    .split('\n')
    .filter((line) => line.includes('"level":"ERROR"'))
    .map((line) => line.slice(0, 600));
}

let userKeys: string[] = [];

beforeAll(async () => {
  const users = await Promise.all(Array.from({ length: CLIENTS - 5 }, (_, i) => createKey(`load-${i}`)));
  userKeys = users.map((u) => u.apiKey);
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
