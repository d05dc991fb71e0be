/**
 * Figures 3 and 4 — read cost that must not grow with the data.
 *
 * 3. Fan-out: the real `functions/consumers/fan-out.ts` handler processes one notification
 *    while the webhooks table holds 10, then 10,000 webhooks, 5 of which match each time. We
 *    count the DynamoDB items the handler reads (a middleware on the shared client; see
 *    `lib/reads.ts`) and the deliveries it enqueues.
 * 4. History: the real `GET /webhooks/history` handler serves page 1 and page 50 (pageSize 20)
 *    for a caller with 1,000 records and for one with 100,000 records. Records and their day
 *    counters are seeded straight into DynamoDB with BatchWriteItem in the webhooks module's
 *    own layout (`recordPartitions`, `newHistoryId`, `expiresAtFor`).
 */
import { randomBytes } from 'node:crypto';
import { DeleteMessageBatchCommand, ReceiveMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { APIGatewayProxyStructuredResultV2, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { lambdaContext } from '../infra/local/lambda';
import { queueDef } from '../shared/catalog/queues';
import { findRoute } from '../shared/catalog/routes';
import type { ApiEvent } from '../shared/edge/handler';
import { apiEvent } from '../test/support/events';
import { sqsEvent, sqsRecord } from './lib/cloud';
import type { ReadMeter, ReadTally } from './lib/reads';
import { batchPut } from './lib/seed';
import { median, round } from './lib/stats';

const MATCH_TYPE = 'modelAccessRequested';

/** Receives and deletes everything on the queue (until two empty receives in a row). */
export async function drain(sqs: SQSClient, queueUrl: string): Promise<string[]> {
  const bodies: string[] = [];
  for (let empty = 0; empty < 2; ) {
    const out = await sqs.send(
      new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }),
    );
    const messages = out.Messages ?? [];
    if (messages.length === 0) {
      empty++;
      continue;
    }
    bodies.push(...messages.map((m) => m.Body ?? ''));
    await sqs.send(
      new DeleteMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: messages.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle ?? '' })),
      }),
    );
  }
  return bodies;
}

export interface FanOutPoint {
  webhooks: number;
  matching: number;
  itemsRead: number;
  rcu: number;
  readCalls: number;
  deliveriesEnqueued: number;
}

export interface FanOutResult {
  small: FanOutPoint;
  large: FanOutPoint;
  itemsRatio: number;
  seedSeconds: number;
  target: { sameCount: boolean; met: boolean };
}

export async function fanOutCost(options: { meter: ReadMeter; sqs: SQSClient; queueUrl: string }) {
  const { documentClient } = await import('../shared/store/clients');
  const { tableName } = await import('../shared/store/tables');
  const { webhookSubscriptionKeys } = await import('../shared/webhooks/store/subscriptions');
  const { NOTIFICATION_NAMES, ALL_NOTIFICATIONS } = await import('../shared/notifications/catalog');
  const def = queueDef('notifications');
  const { handler } = (await import(`../${def.consumer.handler}`)) as {
    handler: (e: SQSEvent, c: ReturnType<typeof lambdaContext>) => Promise<SQSBatchResponse>;
  };

  // Ids far above what the counters hand out, owners that are not real principals.
  let nextId = 50_000_000;
  const recipient = 40_000_001;
  const now = new Date().toISOString();
  const webhook = (global: boolean, createdBy: number, notificationType: string[]) => ({
    id: nextId++,
    name: `bench fan-out ${nextId}`,
    url: 'http://127.0.0.1:9/never-called',
    global,
    notificationType,
    actionType: 'triggered',
    createdBy,
    createdAt: now,
    updatedAt: now,
  });
  const rows = (list: ReturnType<typeof webhook>[]) =>
    list.flatMap((w) => [
      { table: tableName('webhooks'), item: w as Record<string, unknown> },
      ...webhookSubscriptionKeys(w).map((subscriptionKey) => ({
        table: tableName('webhookSubscriptions'),
        item: { subscriptionKey, webhookId: w.id, createdBy: w.createdBy, global: w.global } as Record<
          string,
          unknown
        >,
      })),
    ]);
  const others = NOTIFICATION_NAMES.filter((n) => n !== MATCH_TYPE);
  let seq = 0;
  /** A webhook that must not match: another type, or another user's personal subscription. */
  const nonMatching = () => {
    seq++;
    const pick = (k: number) => others[(seq * 7 + k * 13) % others.length] as string;
    if (seq % 10 === 0) return webhook(true, 1, [pick(0), pick(1)]);
    const owner = 40_100_000 + (seq % 997);
    if (seq % 10 === 1) return webhook(false, owner, [MATCH_TYPE, pick(2)]);
    if (seq % 10 === 2) return webhook(false, owner, [ALL_NOTIFICATIONS]);
    if (seq % 10 === 3) return webhook(false, recipient, [pick(3)]);
    return webhook(false, owner, [pick(0), pick(1), pick(2)].slice(0, 1 + (seq % 3)));
  };
  const matching = [
    webhook(true, 1, [MATCH_TYPE]),
    webhook(true, 1, [MATCH_TYPE, others[0] as string]),
    webhook(true, 1, [ALL_NOTIFICATIONS]),
    webhook(false, recipient, [MATCH_TYPE]),
    webhook(false, recipient, [ALL_NOTIFICATIONS]),
  ];

  const measure = async (webhooks: number): Promise<FanOutPoint> => {
    const samples: { reads: ReadTally; deliveries: number }[] = [];
    for (let i = 0; i < 3; i++) {
      await drain(options.sqs, options.queueUrl);
      const message = {
        id: `bench-${randomBytes(8).toString('hex')}`,
        notificationType: MATCH_TYPE,
        text: 'a user requested access',
        metadata: { actionBy: 40_200_000, modelId: 7 },
        recipients: [recipient],
        timestamp: new Date().toISOString(),
      };
      const { reads, result } = await options.meter.measure(() =>
        handler(sqsEvent([sqsRecord(JSON.stringify(message))]), lambdaContext('bench-fan-out', 30_000)),
      );
      if (result.batchItemFailures.length > 0) throw new Error('fan-out failed the notification');
      const bodies = await drain(options.sqs, options.queueUrl);
      samples.push({ reads, deliveries: bodies.length });
    }
    return {
      webhooks,
      matching: matching.length,
      itemsRead: median(samples.map((s) => s.reads.items)),
      rcu: round(median(samples.map((s) => s.reads.rcu))),
      readCalls: median(samples.map((s) => s.reads.calls)),
      deliveriesEnqueued: median(samples.map((s) => s.deliveries)),
    };
  };

  await batchPut(documentClient, rows([...matching, ...Array.from({ length: 5 }, nonMatching)]));
  const small = await measure(10);
  const seedStarted = performance.now();
  await batchPut(documentClient, rows(Array.from({ length: 10_000 - 10 }, nonMatching)));
  const seedSeconds = (performance.now() - seedStarted) / 1000;
  const large = await measure(10_000);
  const same = small.itemsRead === large.itemsRead && small.readCalls === large.readCalls;
  return {
    small,
    large,
    itemsRatio: round(large.itemsRead / Math.max(1, small.itemsRead)),
    seedSeconds: round(seedSeconds, 1),
    target: {
      sameCount: same,
      met: same && small.deliveriesEnqueued === 5 && large.deliveriesEnqueued === 5,
    },
  } satisfies FanOutResult;
}

interface HistoryPoint {
  records: number;
  page: number;
  itemsRead: number;
  rcu: number;
  readCalls: number;
  count: number;
  returned: number;
}

export interface HistoryResult {
  points: HistoryPoint[];
  page1ItemsRatio: number;
  page1RcuRatio: number;
  page50ItemsRatio: number;
  seedSeconds: number;
  seedItemsPerSecond: number;
  target: { page1RatioAtMost: number; met: boolean };
}

export async function historyCost(options: { meter: ReadMeter }): Promise<HistoryResult> {
  const { documentClient } = await import('../shared/store/clients');
  const { tableName } = await import('../shared/store/tables');
  const { contextFromPrincipal } = await import('../shared/auth/permissions');
  const { createPrincipalWithKey } = await import('../shared/auth/keys');
  const { counterKeys, historyId, createdAtOf, expiresAtFor, dayOf, listingKeys, outcomeOf, ID_SLOTS } =
    await import('../shared/webhooks/store/history-keys');
  const { historyWriteShards } = await import('../shared/webhooks/config');
  const route = findRoute('GET /webhooks/history');
  if (!route) throw new Error('no GET /webhooks/history route');
  const { handler } = (await import(`../${route.handler}`)) as {
    handler: (e: ApiEvent, c: ReturnType<typeof lambdaContext>) => Promise<APIGatewayProxyStructuredResultV2>;
  };
  const retention = Number(process.env.HISTORY_RETENTION_DAYS ?? 30);
  const types = [MATCH_TYPE, 'modelAccessApproved', 'modelAccessDenied'];

  const seed = async (userId: number, count: number) => {
    const items: { table: string; item: Record<string, unknown> }[] = [];
    const counters = new Map<string, { n: number; expiresAt: number }>();
    const end = Date.now() - 1000;
    const shards = historyWriteShards();
    for (let i = 0; i < count; i++) {
      // Spread over the last ~2 days so counters of two days are summed.
      const ms = end - Math.floor((i * 2 * 86_400_000) / count);
      const id = historyId(ms, i % ID_SLOTS);
      const type = types[i % types.length] as string;
      const statusCode = i % 10 === 0 ? 500 : 200;
      const audience = `user#${userId}`;
      const outcome = outcomeOf(statusCode);
      const expiresAt = expiresAtFor(ms, retention);
      items.push({
        table: tableName('deliveryHistory'),
        item: {
          deliveryId: `msg_${randomBytes(16).toString('hex')}_1`,
          seq: 1,
          id,
          request: JSON.stringify({
            text: 'a user requested access',
            metadata: { modelId: i, targetUser: userId },
            webhookId: 1,
            webhookName: 'bench',
          }),
          response: { body: '{"ok":true}', json: true },
          statusCode,
          durationMs: 20,
          notificationType: type,
          webhooksActivityId: i,
          webhooksId: 1,
          url: 'http://127.0.0.1:9/bench',
          name: 'bench',
          actionType: 'triggered',
          createdBy: userId,
          attempt: 1,
          createdAt: createdAtOf(id),
          audience,
          expiresAt,
          ...listingKeys(audience, type, outcome, i % shards),
          lw: `1|${i % shards}`,
        },
      });
      for (const key of counterKeys(audience, type, outcome, dayOf(ms))) {
        const c = counters.get(key) ?? { n: 0, expiresAt };
        c.n++;
        counters.set(key, c);
      }
    }
    for (const [key, c] of counters) {
      items.push({ table: tableName('deliveryCounts'), item: { key, n: c.n, expiresAt: c.expiresAt } });
    }
    await batchPut(documentClient, items, 8);
    return items.length;
  };

  const small = await createPrincipalWithKey('bench-history-1k', []);
  const large = await createPrincipalWithKey('bench-history-100k', []);
  const started = performance.now();
  let seeded = await seed(small.userId, 1_000);
  seeded += await seed(large.userId, 100_000);
  const seedSeconds = (performance.now() - started) / 1000;

  const page = async (principal: { userId: number; name: string }, records: number, pageNo: number) => {
    const event = apiEvent('GET /webhooks/history', {
      authorizer: { ...contextFromPrincipal({ ...principal, permissions: [] }) },
    });
    event.queryStringParameters = { offset: String((pageNo - 1) * 20), pageSize: '20' };
    event.rawQueryString = `offset=${(pageNo - 1) * 20}&pageSize=20`;
    const { result, reads } = await options.meter.measure(() =>
      handler(event, lambdaContext('bench-history', 10_000)),
    );
    if (result.statusCode !== 200) throw new Error(`history answered ${result.statusCode}: ${result.body}`);
    const body = JSON.parse(result.body ?? '{}') as { count: number | string; records: unknown[] };
    return {
      records,
      page: pageNo,
      itemsRead: reads.items,
      rcu: round(reads.rcu),
      readCalls: reads.calls,
      count: Number(body.count),
      returned: body.records.length,
    } satisfies HistoryPoint;
  };
  // Warm the handler (module load) before measuring.
  await page(small, 1_000, 1);
  const points = [
    await page(small, 1_000, 1),
    await page(large, 100_000, 1),
    await page(small, 1_000, 50),
    await page(large, 100_000, 50),
  ];
  const [s1, l1, s50, l50] = points as [HistoryPoint, HistoryPoint, HistoryPoint, HistoryPoint];
  const page1ItemsRatio = l1.itemsRead / Math.max(1, s1.itemsRead);
  const page1RcuRatio = s1.rcu > 0 ? l1.rcu / s1.rcu : Number.NaN;
  const countsRight = s1.count === 1_000 && l1.count === 100_000 && points.every((p) => p.returned === 20);
  return {
    points,
    page1ItemsRatio: round(page1ItemsRatio),
    page1RcuRatio: round(page1RcuRatio),
    page50ItemsRatio: round(l50.itemsRead / Math.max(1, s50.itemsRead)),
    seedSeconds: round(seedSeconds, 1),
    seedItemsPerSecond: Math.round(seeded / seedSeconds),
    target: {
      page1RatioAtMost: 1.5,
      met: countsRight && page1ItemsRatio <= 1.5 && (Number.isNaN(page1RcuRatio) || page1RcuRatio <= 1.5),
    },
  };
}
