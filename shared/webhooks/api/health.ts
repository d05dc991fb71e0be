/**
 * The health `GET /webhooks` and `GET /webhooks/{id}` show, from the counters the history
 * stream's consumer keeps (../health-counters.ts): a few items per webhook, read in batches (one
 * BatchGet per 33 webhooks), the failure streak among them, so a list of thousands costs no
 * query per webhook. Nothing is written on the delivery path for it. One webhook's view
 * (`GET /webhooks/{id}`) adds the receiver latency of its newest attempts, and an ordered
 * webhook's view how many of its ordering keys are parked (ADR 0020).
 */

import { healthFigures, LATENCY_SAMPLES, latencyFigures, rateWindowStart } from '../health-counters';
import type { WebhookHealth, WebhookLatency } from '../model';
import { healthItems, recentDurations } from '../store/health';
import { parkedCount } from '../store/ordered-keys';

/** Ordered webhooks whose parked keys are counted at a time. */
const CONCURRENCY = 8;

export async function webhooksHealth(
  webhookIds: readonly number[],
  now = Date.now(),
): Promise<Map<number, WebhookHealth>> {
  const items = await healthItems(webhookIds, now);
  return new Map(webhookIds.map((id) => [id, healthFigures(id, items, now)]));
}

/** p50/p95 of the webhook's newest attempts (up to LATENCY_SAMPLES) in the hours of the success rate. */
export async function webhookLatency(webhookId: number, now = Date.now()): Promise<WebhookLatency | null> {
  return latencyFigures(await recentDurations(webhookId, rateWindowStart(now), LATENCY_SAMPLES, now));
}

/** How many ordering keys each of these ordered webhooks has parked (a COUNT query each, CONCURRENCY at a time). */
export async function parkedKeyCounts(webhookIds: readonly number[]): Promise<Map<number, number>> {
  const counts = new Map<number, number>();
  await atMost(CONCURRENCY, webhookIds, async (id) => {
    counts.set(id, await parkedCount(id));
  });
  return counts;
}

/** Runs `work` on every item, `limit` at a time. */
async function atMost<T>(
  limit: number,
  items: readonly T[],
  work: (item: T) => Promise<void>,
): Promise<void> {
  const queue = [...items];
  await Promise.all(
    Array.from({ length: Math.min(limit, queue.length) }, async () => {
      for (let next = queue.shift(); next !== undefined; next = queue.shift()) await work(next);
    }),
  );
}
