/**
 * Every POST is recorded exactly once, whatever the receiver answers and whatever the producer
 * put in the metadata, and a failing history write is retried — never the POST.
 */
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createKey, untilDone, useLocalCloudEnv } from '../../support/api';
import {
  type AnyRecord,
  allHistory,
  createHooks,
  deliveriesEnded,
  injectDynamoFailures,
  personalHook,
  pipelineMarker,
  publish,
  sqsRecordOf,
} from './helpers';
import { type Receiver, reply, startReceiver } from './receiver';

// The suite's cloud runs with WEBHOOK_RETRY_SCHEDULE=1,1,2: a failing delivery gets 4 attempts.
const ATTEMPTS_WHEN_FAILING = 4;

const nested = (depth: number): string => (depth === 0 ? '"bottom"' : `{"a":${nested(depth - 1)}}`);

/** Answers a DynamoDB document cannot hold as it is (the reason history writes used to fail). */
const HOSTILE_BODIES = {
  bigint: '{"id":18446744073709551615,"ts":1732300000123456789}',
  emptyKey: '{"":"empty key","ok":true}',
  proto: '{"__proto__":{"polluted":true},"ok":true}',
  deep: nested(40),
} as const;

let receiver: Receiver;
let owner: { userId: number; apiKey: string };

beforeAll(async () => {
  receiver = await startReceiver();
  owner = await createKey('recording-owner');
});
afterAll(async () => {
  await receiver.close();
});

const hook = (name: string, type: string) => personalHook(receiver, name, type);

async function recordsOf(webhookId: number): Promise<AnyRecord[]> {
  return (await allHistory(owner.apiKey)).filter((r) => r.webhooksId === webhookId);
}

describe('hostile receiver answers and producer metadata', () => {
  it('POSTs each scheduled attempt once and records every POST once', async () => {
    const type = 'queryCreated';
    const cases = Object.entries(HOSTILE_BODIES).flatMap(([name, body]) => [
      { name: `${name}-ok`, body, status: 200, posts: 1 },
      { name: `${name}-fail`, body, status: 500, posts: ATTEMPTS_WHEN_FAILING },
    ]);
    for (const c of cases) {
      receiver.on(`/${c.name}`, reply(c.status, c.body, { 'content-type': 'application/json' }));
    }
    const ids = await createHooks(
      owner.apiKey,
      cases.map((c) => hook(c.name, type)),
    );
    const metadataHook = 'hostile-metadata';
    const [metadataId] = await createHooks(owner.apiKey, [hook(metadataHook, 'queryUpdated')]);
    await publish({ notificationType: type, text: 'hostile answers', recipients: [owner.userId] });
    // A producer's extra metadata keys pass through to the receiver and into the history.
    const metadata = { '': 'empty key', deep: JSON.parse(nested(40)), modelId: 7 };
    await publish({
      notificationType: 'queryUpdated',
      text: 'hostile metadata',
      recipients: [owner.userId],
      metadata,
    });

    const expected = [
      ...cases.map((c, i) => ({ id: ids[i] as number, path: `/${c.name}`, posts: c.posts })),
      { id: metadataId as number, path: `/${metadataHook}`, posts: 1 },
    ];
    const tally = async () =>
      Promise.all(
        expected.map(async (e) => ({
          posts: receiver.byPath(e.path).length,
          records: (await recordsOf(e.id)).length,
        })),
      );
    const done = (counts: { posts: number; records: number }[]) =>
      counts.every((c, i) => c.posts >= (expected[i]?.posts ?? 0) && c.records >= c.posts);
    await untilDone(tally, done, { what: 'hostile deliveries' });
    // No attempt is scheduled after the last one each delivery logged, and a marker sent through
    // the pipeline after them has arrived: an extra POST would have come before it.
    await deliveriesEnded(expected.map((e) => String(receiver.byPath(e.path)[0]?.headers['webhook-id'])));
    await pipelineMarker(receiver, owner);
    const counts = await tally();

    for (const [i, e] of expected.entries()) {
      const posts = receiver.byPath(e.path);
      const webhookIds = new Set(posts.map((p) => p.headers['webhook-id']));
      expect(webhookIds.size, e.path).toBe(1);
      expect(counts[i], e.path).toEqual({ posts: e.posts, records: e.posts });
      const records = await recordsOf(e.id);
      expect(records.map((r) => r.attempt).sort(), e.path).toEqual(
        Array.from({ length: e.posts }, (_, n) => n + 1),
      );
    }

    // The view: plain JSON parsed, anything a client could not read back faithfully as text.
    const view = async (name: string) =>
      (await recordsOf(ids[cases.findIndex((c) => c.name === name)] as number))[0];
    expect((await view('bigint-ok'))?.response).toEqual({ body: HOSTILE_BODIES.bigint });
    expect((await view('deep-ok'))?.response).toEqual({ body: HOSTILE_BODIES.deep });
    expect((await view('emptyKey-ok'))?.response).toEqual({ body: { '': 'empty key', ok: true } });
    const proto = (await view('proto-ok'))?.response.body as Record<string, unknown>;
    expect(Object.keys(proto).sort()).toEqual(['__proto__', 'ok']);
    const [metadataRecord] = await recordsOf(metadataId as number);
    expect(metadataRecord?.request.metadata).toMatchObject({ '': 'empty key', modelId: 7 });
    expect(metadataRecord?.request.metadata.deep).toEqual(JSON.parse(nested(40)));

    const log = await readFile(inject('logFile'), 'utf8');
    const deliveryIds = [
      ...new Set(expected.flatMap((e) => receiver.byPath(e.path).map((p) => p.headers['webhook-id']))),
    ];
    const troubled = log
      .split('\n')
      .filter((line) => /history write failed|history record not stored/.test(line))
      .filter((line) => deliveryIds.some((id) => id !== undefined && line.includes(id)));
    expect(troubled).toEqual([]);
  });
});

describe('a failing history write', () => {
  it('is retried without a second POST, and the delivery goes on', async () => {
    useLocalCloudEnv();
    // The receiver is on loopback, as in the local stage.
    process.env.ALLOW_PRIVATE_TARGETS = 'true';
    const { dynamodb } = await import('../../../shared/store/clients');
    const { processRecord: processDelivery } = (await import('../../../functions/consumers/deliver')).handler;
    const [webhookId] = await createHooks(owner.apiKey, [hook('write-fails', 'queryCanceled')]);
    const deliveryId = `msg_${'ab'.repeat(16)}_${webhookId}`;
    const body = JSON.stringify({
      v: 1,
      deliveryId,
      webhookId,
      activityId: 42,
      notificationType: 'queryCreated',
      text: 'write failures',
      metadata: {},
    });
    const message = sqsRecordOf(body, { messageId: `m-${deliveryId}` });
    let failures = 0;
    const remove = injectDynamoFailures(dynamodb, (command, table) => {
      if (!table.endsWith('deliveryHistory') || command !== 'PutItemCommand' || failures >= 3) return false;
      failures++;
      return true;
    });
    try {
      await processDelivery(message, { getRemainingTimeInMillis: () => 50_000 } as never);
    } finally {
      remove();
    }
    expect(failures).toBe(3);
    expect(receiver.byPath('/write-fails')).toHaveLength(1);
    const records = await recordsOf(webhookId as number);
    expect(records.map((r) => [r.deliveryId, r.attempt, r.statusCode])).toEqual([[deliveryId, 1, 200]]);
  });
});
