import { randomBytes, randomUUID } from 'node:crypto';
import { ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminKey, call, createKey, eventually, untilDone, useLocalCloudEnv } from '../../support/api';
import { allHistory, createHooks, publish } from './helpers';
import { type Receiver, reply, startReceiver } from './receiver';

let receiver: Receiver;

beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
});

describe('fan-out: a notification reaches exactly the right webhooks', () => {
  const whsec = `whsec_${randomBytes(32).toString('base64')}`;
  const rawSecret = 'a raw shared secret';
  let u1: { userId: number; apiKey: string };
  let u2: { userId: number; apiKey: string };
  const ids: number[] = [];

  afterAll(async () => {
    for (const id of ids) await call('DELETE', `/webhooks/${id}`);
  });

  it('routes by type, ALL_NOTIFICATIONS, global vs personal and recipients, signed', async () => {
    u1 = await createKey('fanout-u1');
    u2 = await createKey('fanout-u2');
    const T = 'modelAccessRequested';
    const base = { actionType: 'triggered', url: '' };
    ids.push(
      ...(await createHooks(adminKey(), [
        {
          ...base,
          name: 'g-type',
          url: receiver.url('/g-type'),
          global: true,
          notificationType: [T],
          secret: rawSecret,
        },
        {
          ...base,
          name: 'g-all',
          url: receiver.url('/g-all'),
          global: true,
          notificationType: ['ALL_NOTIFICATIONS'],
        },
        {
          ...base,
          name: 'g-other',
          url: receiver.url('/g-other'),
          global: true,
          notificationType: ['userCreated'],
        },
      ])),
      ...(await createHooks(u1.apiKey, [
        {
          ...base,
          name: 'p1-type',
          url: receiver.url('/p1-type'),
          global: false,
          notificationType: [T],
          secret: whsec,
        },
        {
          ...base,
          name: 'p1-other',
          url: receiver.url('/p1-other'),
          global: false,
          notificationType: ['modelCommentCreated'],
        },
      ])),
      ...(await createHooks(u2.apiKey, [
        { ...base, name: 'p2-type', url: receiver.url('/p2-type'), global: false, notificationType: [T, T] },
      ])),
    );
    const token = randomUUID();
    const dupId = `dup-${token}`;
    const cases: { text: string; input: Parameters<typeof publish>[0]; expected: string[] }[] = [
      {
        text: `${token} n1`,
        input: { notificationType: T, text: '', recipients: [u1.userId] },
        expected: ['/g-type', '/g-all', '/p1-type'],
      },
      {
        text: `${token} n2`,
        input: { notificationType: T, text: '', metadata: { targetUser: u2.userId } },
        expected: ['/g-type', '/g-all', '/p2-type'],
      },
      {
        text: `${token} n3`,
        input: { notificationType: T, text: '', metadata: { actionBy: u1.userId } },
        expected: ['/g-type', '/g-all'],
      },
      {
        text: `${token} n4`,
        input: { notificationType: T, text: '', metadata: { actionBy: u2.userId, notifyInitiator: true } },
        expected: ['/g-type', '/g-all', '/p2-type'],
      },
      {
        text: `${token} n5`,
        input: { notificationType: 'modelCommentCreated', text: '', recipients: [u1.userId, u2.userId] },
        expected: ['/g-all', '/p1-other'],
      },
      // Published twice with one producer id: one notification, one delivery per webhook.
      {
        text: `${token} n6`,
        input: { notificationType: T, text: '', recipients: [u1.userId], id: dupId },
        expected: ['/g-type', '/g-all', '/p1-type'],
      },
    ];
    for (const c of cases) await publish({ ...c.input, text: c.text });
    await publish({ ...(cases[5]?.input ?? { notificationType: T, text: '' }), text: `${token} n6` });
    const expectedTotal = cases.reduce((n, c) => n + c.expected.length, 0);
    const mine = () => receiver.received.filter((r) => r.body.includes(token));
    await eventually(
      async () => mine(),
      (list) => list.length >= expectedTotal,
      20_000,
    );
    // Give a wrong or duplicate delivery time to show up before asserting exactness.
    await new Promise((r) => setTimeout(r, 2500));
    for (const c of cases) {
      const paths = mine()
        .filter((r) => JSON.parse(r.body).text === c.text)
        .map((r) => r.path)
        .sort();
      expect(paths, c.text).toEqual([...c.expected].sort());
    }

    // Signatures: the standardwebhooks verifier accepts what we send.
    const p1 = mine().find((r) => r.path === '/p1-type');
    const g = mine().find((r) => r.path === '/g-type');
    const unsigned = mine().find((r) => r.path === '/g-all');
    if (!p1 || !g || !unsigned) throw new Error('missing deliveries');
    expect(new Webhook(whsec).verify(p1.body, p1.headers)).toMatchObject({ webhookName: 'p1-type' });
    expect(new Webhook(Buffer.from(rawSecret), { format: 'raw' }).verify(g.body, g.headers)).toBeTruthy();
    expect(() => new Webhook(whsec).verify(`${p1.body} `, p1.headers)).toThrow();
    expect(unsigned.headers['webhook-signature']).toBeUndefined();
    expect(unsigned.headers['webhook-id']).toMatch(/^msg_[0-9a-f]{32}_\d+$/);
    const payload = JSON.parse(p1.body);
    expect(Object.keys(payload).sort()).toEqual(['metadata', 'text', 'webhookId', 'webhookName']);
    expect(payload.metadata.notificationType).toBe(T);
  });
});

describe('accounting', () => {
  it('ends 1,000 notifications against 30% random failures delivered or dead-lettered, none lost or doubled', async () => {
    useLocalCloudEnv();
    const { publishNotifications } = await import('../../../shared/notifications/publisher');
    const owner = await createKey('accounting');
    const [webhookId] = await createHooks(owner.apiKey, [
      {
        name: 'flaky',
        url: receiver.url('/flaky'),
        global: false,
        notificationType: ['bulkJobStatus'],
        actionType: 'receive',
      },
    ]);
    receiver.on('/flaky', (req, body, res) =>
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
    const posts = () => receiver.byPath('/flaky');
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
    await new Promise((r) => setTimeout(r, 1500));
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
