/**
 * Issue 24, finding 6: 30 manual retries of one record in 1.7 s gave 30 records and 30 POSTs.
 * `POST /webhooks/history/retry/{id}` now counts each user's retries per fixed window (the
 * local stage's `manualRetryRate`) in DynamoDB and answers 429 with Retry-After past the
 * limit. The windows a burst spans are measured, so the expectations hold wherever the burst
 * falls relative to a window's end.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadStage } from '../../infra/stages';
import { type Receiver, startReceiver } from '../integration/webhooks/receiver';
import { baseUrl, createKey, eventually, useLocalCloudEnv } from '../support/api';
import { expectErrorShape, request } from './support';

const rate = loadStage('local').manualRetryRate;
const windowOf = (ms: number) => Math.floor(ms / 1000 / rate.windowSeconds);

describe('manual retry rate limit', () => {
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver.close();
  });

  it(`lets a user start ${rate.perWindow} retries per ${rate.windowSeconds} s, then answers 429 with Retry-After`, async () => {
    const user = await createKey(`retry-rate-${randomUUID().slice(0, 8)}`);
    const path = `/retry-rate/${randomUUID()}`;
    const created = await request(baseUrl(), 'POST', '/webhooks', {
      key: user.apiKey,
      body: {
        webhooks: [
          {
            name: 'retry rate',
            url: receiver.url(path),
            global: false,
            notificationType: ['modelAccessRequested'],
            actionType: 'triggered',
          },
        ],
      },
    });
    expect(created.status, created.text).toBe(201);
    useLocalCloudEnv();
    const { publishNotification } = await import('../../shared/notifications/publisher');
    await publishNotification({
      notificationType: 'modelAccessRequested',
      text: 'retry rate',
      recipients: [user.userId],
    });
    const history = await eventually(
      () => request(baseUrl(), 'GET', '/webhooks/history', { key: user.apiKey }),
      (r) => (r.body?.records ?? []).length >= 1,
      30_000,
    );
    const recordId = history.body.records[0].id;
    const postsBefore = receiver.byPath(path).length;

    const attempts = 2 * rate.perWindow + 1;
    const started = Date.now();
    const replies = [];
    for (let i = 0; i < attempts; i++) {
      replies.push(
        await request(baseUrl(), 'POST', `/webhooks/history/retry/${recordId}`, { key: user.apiKey }),
      );
    }
    const windows = windowOf(Date.now()) - windowOf(started) + 1;

    const accepted = replies.filter((r) => r.status === 201);
    const limited = replies.filter((r) => r.status === 429);
    expect(accepted.length + limited.length).toBe(attempts);
    expect(accepted.length).toBeLessThanOrEqual(rate.perWindow * windows);
    expect(limited.length).toBeGreaterThanOrEqual(attempts - rate.perWindow * windows);
    for (const reply of limited) {
      expectErrorShape(reply, 'retry over the limit');
      expect(reply.body.message).toMatch(/^manual retry limit reached: at most \d+ per \d+ s/);
      const retryAfter = Number(reply.headers.get('retry-after'));
      expect(Number.isInteger(retryAfter)).toBe(true);
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(rate.windowSeconds);
    }
    // A refused retry never reaches the receiver: one POST per accepted retry.
    await eventually(
      async () => receiver.byPath(path).length,
      (n) => n >= postsBefore + accepted.length,
      30_000,
    );
    expect(receiver.byPath(path).length).toBe(postsBefore + accepted.length);
  });
});
