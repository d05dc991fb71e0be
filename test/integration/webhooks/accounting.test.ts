/**
 * Accounting: 1,000 notifications to a receiver that fails 30 % of POSTs at random all end
 * delivered or dead-lettered, none lost or doubled, every POST one history record. On a local
 * cloud of this file's own: its thousands of deliveries and retries would otherwise hold up every
 * delivery of the files running beside it on the tier's cloud (and its DLQ reads would hide
 * theirs).
 */
import { GetQueueAttributesCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { call, createKey, untilDone, useLocalCloudEnv } from '../../support/api';
import { allHistory, createHooks, HANG_GUARD_POST_TIMEOUT, onOwnCloud } from './helpers';
import { reply } from './receiver';

const own = onOwnCloud(HANG_GUARD_POST_TIMEOUT);

describe('accounting', () => {
  it('ends 1,000 notifications against 30% random failures delivered or dead-lettered, none lost or doubled', async () => {
    useLocalCloudEnv();
    const { publishNotifications } = await import('../../../shared/notifications/publisher');
    const owner = await createKey('accounting');
    const [webhookId] = await createHooks(owner.apiKey, [
      {
        name: 'flaky',
        url: own.receiver.url('/flaky'),
        global: false,
        notificationType: ['bulkJobStatus'],
        actionType: 'receive',
      },
    ]);
    own.receiver.on('/flaky', (req, body, res) =>
      (Math.random() < 0.3 ? reply(500) : reply(200))(req, body, res),
    );
    const N = 1000;
    await publishNotifications(
      Array.from({ length: N }, (_, i) => ({
        notificationType: 'bulkJobStatus' as const,
        text: `job ${i}`,
        recipients: [owner.userId],
        id: `acct-${webhookId}-${i}`,
      })),
    );

    const sqs = new SQSClient({ useQueueUrlAsEndpoint: false });
    const dlqUrl = process.env.QUEUE_DELIVERIES_DLQ_URL;
    const deadLettered = new Map<string, string>();
    const drainDlq = async () => {
      for (;;) {
        const out = await sqs.send(
          new ReceiveMessageCommand({
            QueueUrl: dlqUrl,
            MaxNumberOfMessages: 10,
            VisibilityTimeout: 600,
            WaitTimeSeconds: 0,
            MessageAttributeNames: ['All'],
          }),
        );
        for (const m of out.Messages ?? []) {
          const body = JSON.parse(m.Body ?? '{}');
          if (body.webhookId === webhookId) {
            expect(deadLettered.has(body.deliveryId)).toBe(false);
            deadLettered.set(body.deliveryId, m.MessageAttributes?.reason?.StringValue ?? '');
          }
        }
        if ((out.Messages ?? []).length === 0) return;
      }
    };
    const posts = () => own.receiver.byPath('/flaky');
    const deliveredIds = () =>
      new Set(
        posts()
          .filter((p) => p.status === 200)
          .map((p) => p.headers['webhook-id']),
      );
    // However long a loaded machine takes: the only bound is a guard against a stall (no POST,
    // no dead letter for two minutes).
    await untilDone(
      async () => {
        await drainDlq();
        return { terminal: deliveredIds().size + deadLettered.size, posts: posts().length };
      },
      ({ terminal }) => terminal >= N,
      { what: 'accounting deliveries' },
    );
    // Nothing is left on this cloud's notification and delivery queues (visible, held by a
    // consumer, or waiting out a retry's delay): no POST and no dead letter can follow.
    const left = async () =>
      Promise.all(
        ['QUEUE_NOTIFICATIONS_URL', 'QUEUE_DELIVERIES_URL'].map(async (variable) => {
          const out = await sqs.send(
            new GetQueueAttributesCommand({
              QueueUrl: process.env[variable],
              AttributeNames: [
                'ApproximateNumberOfMessages',
                'ApproximateNumberOfMessagesNotVisible',
                'ApproximateNumberOfMessagesDelayed',
              ],
            }),
          );
          return Object.values(out.Attributes ?? {}).reduce((n, v) => n + Number(v), 0);
        }),
      );
    await untilDone(left, (counts) => counts.every((n) => n === 0), { what: 'the queues emptying' });
    await drainDlq();

    const byId = new Map<string, number[]>();
    for (const p of posts()) {
      const id = p.headers['webhook-id'] ?? '';
      byId.set(id, [...(byId.get(id) ?? []), p.status]);
    }
    expect(byId.size).toBe(N); // every notification was delivered at least once: none lost
    for (const [id, statuses] of byId) {
      const successes = statuses.filter((s) => s === 200).length;
      if (deadLettered.has(id)) {
        expect(successes, id).toBe(0);
        expect(statuses, id).toHaveLength(4); // 1 + WEBHOOK_RETRY_SCHEDULE (1,1,2)
        expect(deadLettered.get(id)).toMatch(/exhausted after 4 attempts/);
      } else {
        expect(successes, id).toBe(1);
        expect(statuses.at(-1), id).toBe(200);
        expect(statuses.length, id).toBeLessThanOrEqual(4);
      }
    }
    expect(deliveredIds().size + deadLettered.size).toBe(N);

    // Every POST is one history record with its own attempt number: no attempt was sent twice.
    const history = await untilDone(
      () => allHistory(owner.apiKey),
      (records) => records.length >= posts().length,
      { progress: (records) => records.length, what: 'accounting history' },
    );
    expect(history).toHaveLength(posts().length);
    const attempts = new Map<string, number[]>();
    for (const r of history) attempts.set(r.deliveryId, [...(attempts.get(r.deliveryId) ?? []), r.attempt]);
    for (const [id, statuses] of byId) {
      const recorded = (attempts.get(id) ?? []).sort((a, b) => a - b);
      expect(recorded, id).toEqual(statuses.map((_, i) => i + 1));
    }
    // `count` follows the records through the stream consumer: equal once it has caught up.
    const count = await untilDone(
      async () => (await call('GET', '/webhooks/history?pageSize=1', { key: owner.apiKey })).body.count,
      (value) => value === posts().length,
      { what: 'accounting count' },
    );
    expect(count).toBe(posts().length);
    sqs.destroy();
    // The waits above carry their own hang guards; this only stops a test that never returns.
  }, 1_800_000);
});
