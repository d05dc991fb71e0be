/**
 * What one delivery attempt writes (issue 23, ADR 0012): at most 4 write units for a 1 KB
 * notification — the record, stored compressed, and its three keys-only index entries; no
 * marker per attempt. Duplicate messages of one attempt: a late one is dropped by the
 * delivery's records, and twins POSTed at the same moment each get a record. Fan-out steps run
 * under a lease, so one notification published twice at once is enqueued once.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { notification1Kb } from '../../../bench/fixtures/notification-1kb';
import { createKey, untilDone, useLocalCloudEnv } from '../../support/api';
import {
  type AnyRecord,
  allHistory,
  createHooks,
  deliveriesEnded,
  fanOutsEnded,
  personalHook,
  pipelineMarker,
  processNotification,
  publish,
  sqsRecordOf,
} from './helpers';
import { type Receiver, startReceiver } from './receiver';

const WRITES = new Set(['PutItemCommand', 'UpdateItemCommand', 'DeleteItemCommand', 'BatchWriteItemCommand']);

interface Metered {
  table: string;
  command: string;
  units: number;
}

/** Asks every write for its consumed capacity (with the index entries) and lists it per table. */
function meterWrites(client: DynamoDBClient): { writes: Metered[]; remove: () => void } {
  const name = `attemptWriteMeter${Math.random().toString(36).slice(2)}`;
  const writes: Metered[] = [];
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const command = String((context as { commandName?: string }).commandName);
      if (!WRITES.has(command)) return next(args);
      const input = args.input as { TableName?: string; ReturnConsumedCapacity?: string };
      input.ReturnConsumedCapacity = 'INDEXES';
      const result = await next(args);
      const consumed = (result.output as { ConsumedCapacity?: { CapacityUnits?: number } }).ConsumedCapacity;
      writes.push({ table: String(input.TableName), command, units: Number(consumed?.CapacityUnits ?? 0) });
      return result;
    },
    { step: 'initialize', name },
  );
  return { writes, remove: () => client.middlewareStack.remove(name) };
}

const sqsRecord = (body: string, id: string) => sqsRecordOf(body, { messageId: `m-${id}` });

/** One record through the deliveries consumer's edge, as its Lambda runs it. */
async function deliverRecord() {
  const { handler } = await import('../../../functions/consumers/deliver');
  return handler.processRecord;
}

let receiver: Receiver;
let owner: { userId: number; apiKey: string };

beforeAll(async () => {
  receiver = await startReceiver();
  owner = await createKey('attempt-writes');
  useLocalCloudEnv();
  // The receiver is on loopback, as in the local stage.
  process.env.ALLOW_PRIVATE_TARGETS = 'true';
});
afterAll(async () => {
  await receiver.close();
});

const hook = (name: string, type: string) => personalHook(receiver, name, type);

async function deliveryMessage(webhookId: number, n: number) {
  const notification = notification1Kb(n);
  const deliveryId = `msg_${n.toString(16).padStart(32, 'c')}_${webhookId}`;
  const body = JSON.stringify({
    v: 1,
    deliveryId,
    webhookId,
    activityId: 7,
    notificationType: notification.notificationType,
    text: notification.text,
    metadata: { ...notification.metadata, notificationType: notification.notificationType },
  });
  return { deliveryId, body, notification };
}

const recordsOf = async (webhookId: number): Promise<AnyRecord[]> =>
  (await allHistory(owner.apiKey)).filter((r) => r.webhooksId === webhookId);

describe('one delivery attempt', () => {
  it('writes at most 4 units for a 1 KB notification: the compressed record and its three index entries', async () => {
    const { dynamodb, documentClient } = await import('../../../shared/store/clients');
    const { tableName } = await import('../../../shared/store/tables');
    const processDelivery = await deliverRecord();
    const [webhookId] = (await createHooks(owner.apiKey, [hook('one-kb', 'modelAccessRequested')])) as [
      number,
    ];
    const context = { getRemainingTimeInMillis: () => 50_000 } as never;
    // A container leases its history id slot once, with its first record: not an attempt's cost.
    const warmUp = await deliveryMessage(webhookId, 0);
    await processDelivery(sqsRecord(warmUp.body, warmUp.deliveryId), context);
    const { deliveryId, body, notification } = await deliveryMessage(webhookId, 1);
    const meter = meterWrites(dynamodb);
    try {
      await processDelivery(sqsRecord(body, deliveryId), context);
    } finally {
      meter.remove();
    }
    const post = receiver.byPath('/one-kb').find((p) => p.headers['webhook-id'] === deliveryId);
    expect(post?.body.length).toBeGreaterThanOrEqual(1024);
    const history = tableName('deliveryHistory');
    // One write, on the history table; DynamoDB counts its index entries in it.
    expect(meter.writes.map((w) => [w.table, w.command])).toEqual([[history, 'PutItemCommand']]);
    // 1 for the record (under 1 KB once compressed; 2 as text) + 1 per keys-only index entry.
    expect(meter.writes.reduce((sum, w) => sum + w.units, 0)).toBe(4);

    const stored = await documentClient.send(
      new GetCommand({ TableName: history, Key: { deliveryId, seq: 1 } }),
    );
    expect(stored.Item?.request).toBeInstanceOf(Uint8Array);
    const record = (await recordsOf(webhookId)).find((r) => r.deliveryId === deliveryId);
    expect(record?.request).toEqual(JSON.parse(post?.body ?? ''));
    expect(record?.request.text).toBe(notification.text);
  });

  it('drops a second message of an attempt already recorded, without a POST', async () => {
    const processDelivery = await deliverRecord();
    const [webhookId] = (await createHooks(owner.apiKey, [hook('late-twin', 'modelAccessRequested')])) as [
      number,
    ];
    const { deliveryId, body } = await deliveryMessage(webhookId, 2);
    const context = { getRemainingTimeInMillis: () => 50_000 } as never;
    await processDelivery(sqsRecord(body, deliveryId), context);
    await processDelivery(sqsRecord(body, `${deliveryId}-copy`), context);
    expect(receiver.byPath('/late-twin')).toHaveLength(1);
    expect((await recordsOf(webhookId)).map((r) => r.attempt)).toEqual([1]);
  });

  it('records both POSTs of twins sent at the same moment (one webhook-id), and counts both', async () => {
    const processDelivery = await deliverRecord();
    const [webhookId] = (await createHooks(owner.apiKey, [hook('twins', 'modelAccessRequested')])) as [
      number,
    ];
    // The receiver answers neither POST until both have arrived: both messages read the
    // delivery's records before either was written.
    const waiting: (() => void)[] = [];
    receiver.on('/twins', (_req, _body, res) => {
      waiting.push(() => res.writeHead(200).end('ok'));
      if (waiting.length === 2) for (const answer of waiting) answer();
      return 200;
    });
    const { deliveryId, body } = await deliveryMessage(webhookId, 3);
    const context = { getRemainingTimeInMillis: () => 50_000 } as never;
    await Promise.all([
      processDelivery(sqsRecord(body, deliveryId), context),
      processDelivery(sqsRecord(body, `${deliveryId}-twin`), context),
    ]);
    const posts = receiver.byPath('/twins');
    expect(posts).toHaveLength(2);
    expect(new Set(posts.map((p) => p.headers['webhook-id']))).toEqual(new Set([deliveryId]));
    const records = await recordsOf(webhookId);
    expect(records.map((r) => [r.deliveryId, r.attempt, r.statusCode])).toEqual([
      [deliveryId, 1, 200],
      [deliveryId, 1, 200],
    ]);
  });
});

describe('fan-out steps', () => {
  it('take a lease: a second holder waits, a finished step is done, a lapsed lease is taken over', async () => {
    const { takeStep, finishStep } = await import('../../../shared/webhooks/store/dedup');
    const id = `fanout#test-${Math.random().toString(36).slice(2)}#0#`;
    const now = Date.now();
    const [first, second] = await Promise.all([takeStep(id, 30_000, 1, now), takeStep(id, 30_000, 1, now)]);
    expect([first?.state, second?.state].sort()).toEqual(['running', 'taken']);
    const running = first?.state === 'running' ? first : second;
    expect(running).toEqual({ state: 'running', leaseUntil: now + 30_000 });
    // The holder died: after its lease, the step is taken over (its work may be half done).
    expect(await takeStep(id, 30_000, 1, now + 30_001)).toEqual({ state: 'taken', takenOver: true });
    await finishStep(id, 1);
    expect(await takeStep(id, 30_000, 1, now + 90_000)).toEqual({ state: 'done' });
  });

  it('write two units for a notification fanned out in one step (its lease and done mark); a redelivered copy is skipped', async () => {
    const { dynamodb } = await import('../../../shared/store/clients');
    const { tableName } = await import('../../../shared/store/tables');
    const { buildNotification } = await import('../../../shared/notifications/publisher');
    // A type no other webhook of this tier subscribes to: the notification reaches this one only.
    await createHooks(owner.apiKey, [hook('one-step', 'modelTagAdded')]);
    const notification = buildNotification({
      id: `one-step-${Math.random().toString(36).slice(2)}`,
      notificationType: 'modelTagAdded',
      text: 'one step',
      recipients: [owner.userId],
    });
    const record = sqsRecordOf(JSON.stringify(notification));
    const lambda = { getRemainingTimeInMillis: () => 30_000 };
    const meter = meterWrites(dynamodb);
    try {
      expect(await processNotification(record, lambda)).toEqual({ deliveries: 1 });
    } finally {
      meter.remove();
    }
    const idempotency = tableName('idempotency');
    // No mark of the whole notification: the step's done mark without a follow-up says it.
    expect(meter.writes.filter((w) => w.table === idempotency).map((w) => [w.command, w.units])).toEqual([
      ['PutItemCommand', 1],
      ['PutItemCommand', 1],
    ]);
    expect(await processNotification({ ...record, messageId: `${record.messageId}-copy` }, lambda)).toEqual({
      deliveries: 0,
    });
  });

  it('enqueue one notification published twice at once (same producer id) once', async () => {
    const [webhookId] = (await createHooks(owner.apiKey, [
      hook('published-twice', 'modelAccessUpdated'),
    ])) as [number];
    const id = `twice-${Math.random().toString(36).slice(2)}`;
    const notification = {
      id,
      notificationType: 'modelAccessUpdated',
      text: 'published twice',
      recipients: [owner.userId],
    };
    const copies = await Promise.all([publish(notification), publish(notification)]);
    await untilDone(
      async () => (await recordsOf(webhookId)).length,
      (n) => n >= 1,
      { what: 'the delivery of a notification published twice' },
    );
    // Both copies are through fan-out (one fanned out, the other, back after the step's lease,
    // found it done), the delivery logged its last attempt, and a marker sent through the
    // pipeline after that has arrived: a second delivery would have come before it.
    await fanOutsEnded(copies.map((c) => c.messageId));
    await deliveriesEnded([String(receiver.byPath('/published-twice')[0]?.headers['webhook-id'])]);
    await pipelineMarker(receiver, owner);
    expect(receiver.byPath('/published-twice')).toHaveLength(1);
    expect(await recordsOf(webhookId)).toHaveLength(1);
  });
});
