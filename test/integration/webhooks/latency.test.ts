/**
 * A webhook's receiver latency on `GET /webhooks/{id}` (p50/p95 of its newest attempts) agrees
 * with the durations its own history shows, and `GET /webhooks/history?deliveryId=` finds one
 * delivery's records for its owner only.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createKey, untilDone } from '../../support/api';
import { type AnyRecord, allHistory, createHooks, publish } from './helpers';
import { type Receiver, startReceiver } from './receiver';

/** Nearest rank, computed here independently of the service's module. */
function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.ceil((p / 100) * sorted.length) - 1] as number;
}

describe('webhook latency and the deliveryId filter', () => {
  let receiver: Receiver;
  let owner: { userId: number; apiKey: string };
  let other: { userId: number; apiKey: string };
  let webhookId: number;
  let records: AnyRecord[];
  const DELAYS = [0, 40, 80, 120, 160, 200, 240, 280, 600];

  beforeAll(async () => {
    receiver = await startReceiver();
    let n = 0;
    // Each answer waits a different time; the last one is the slow outlier p95 must show.
    receiver.on('/timed', (_req, _body, res) => {
      const delay = DELAYS[n++ % DELAYS.length] as number;
      setTimeout(() => res.writeHead(200).end('ok'), delay);
      return 200;
    });
    [owner, other] = await Promise.all([createKey('latency-owner'), createKey('latency-other')]);
    [webhookId] = (await createHooks(owner.apiKey, [
      {
        name: 'timed',
        url: receiver.url('/timed'),
        global: false,
        actionType: 'receive',
        notificationType: ['queryCreated'],
      },
    ])) as [number];
    for (const [i] of DELAYS.entries())
      await publish({ notificationType: 'queryCreated', text: `timed ${i}`, recipients: [owner.userId] });
    records = await untilDone(
      () => allHistory(owner.apiKey, `&webhookId=${webhookId}`),
      (r) => r.length === DELAYS.length,
      { progress: (r) => r.length, what: 'the timed deliveries' },
    );
  });
  afterAll(() => receiver?.close());

  it('p50 and p95 over the 24 h are those of the durations in the history', async () => {
    const durations = records.map((r) => r.durationMs as number);
    expect(durations.every((d) => Number.isInteger(d) && d >= 0)).toBe(true);
    expect(Math.max(...durations)).toBeGreaterThanOrEqual(600);
    const { body } = await call('GET', `/webhooks/${webhookId}`, { key: owner.apiKey });
    expect(body.health.latency24h).toEqual({
      p50Ms: percentile(durations, 50),
      p95Ms: percentile(durations, 95),
      samples: DELAYS.length,
    });
    // The list does not read records for it.
    const list = await call('GET', '/webhooks', { key: owner.apiKey });
    expect(list.body.find((w: AnyRecord) => w.id === webhookId).health.latency24h).toBeUndefined();
  });

  it('deliveryId: that delivery’s records, for its owner only; a malformed one is a 400 naming it', async () => {
    const record = records[3] as AnyRecord;
    const query = `/webhooks/history?deliveryId=${record.deliveryId}`;
    const mine = await call('GET', query, { key: owner.apiKey });
    expect(mine.status).toBe(200);
    expect(mine.body.count).toBe(1);
    expect(mine.body.records.map((r: AnyRecord) => r.id)).toEqual([record.id]);
    const filteredOut = await call('GET', `${query}&successOrFailure=failure`, { key: owner.apiKey });
    expect(filteredOut.body).toEqual({ count: 0, records: [] });
    const theirs = await call('GET', query, { key: other.apiKey });
    expect(theirs.body).toEqual({ count: 0, records: [] });
    const bad = await call('GET', '/webhooks/history?deliveryId=msg_1', { key: owner.apiKey });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain('deliveryId');
  });
});
