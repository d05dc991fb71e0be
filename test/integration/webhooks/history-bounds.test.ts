/**
 * GET /webhooks/history at its edges (issue 34): an `until` in the future (a century ahead, year
 * 9999) is the same window as one ending now, not a walk over every day up to it (item 12); and
 * the `webhookId` filter costs the same reads for another user's busy webhook as for an id that
 * does not exist, so its time does not tell them apart (item 15).
 */
import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { call, createKey, useLocalCloudEnv } from '../../support/api';
import { watchDynamoDbCalls } from '../../support/dynamodb-operations';
import { batchPutHistory, createHooks } from './helpers';

const TYPE = 'modelAccessRequested';

describe('history bounds', () => {
  let owner: { userId: number; apiKey: string };
  let other: { userId: number; apiKey: string };
  let busy: number;
  let ownHook: number;

  beforeAll(async () => {
    [owner, other] = await Promise.all([createKey('bounds-owner'), createKey('bounds-other')]);
    const hook = (user: string) => ({
      name: `bounds ${user}`,
      url: `http://127.0.0.1:9/bounds/${user}`,
      global: false,
      notificationType: [TYPE],
      actionType: 'triggered',
    });
    [ownHook] = (await createHooks(owner.apiKey, [hook('owner')])) as [number];
    [busy] = (await createHooks(other.apiKey, [hook('other')])) as [number];
    useLocalCloudEnv();
    const { newHistoryItem } = await import('../../../shared/webhooks/store/history');
    const items = [];
    for (let i = 0; i < 400; i++) {
      const mine = i < 10;
      const webhookId = mine ? ownHook : busy;
      items.push(
        await newHistoryItem({
          request: { text: `r${i}`, metadata: { notificationType: TYPE }, webhookId, webhookName: 'w' },
          response: { body: '' },
          statusCode: 500,
          durationMs: 1,
          notificationType: TYPE,
          webhooksActivityId: i,
          webhooksId: webhookId,
          url: 'http://127.0.0.1:9/bounds',
          name: 'w',
          actionType: 'triggered',
          createdBy: mine ? owner.userId : other.userId,
          deliveryId: `msg_${randomBytes(16).toString('hex')}_${webhookId}`,
          attempt: 1,
          global: false,
        }),
      );
    }
    await batchPutHistory(items);
  });

  it('treats an until in the future as now (item 12)', async () => {
    const since = new Date(Date.now() - 3_600_000).toISOString();
    const base = `/webhooks/history?webhookId=${ownHook}&since=${encodeURIComponent(since)}`;
    const now = await call('GET', base, { key: owner.apiKey });
    expect(now.status, now.text).toBe(200);
    expect(now.body.count).toBe(10);
    for (const until of [
      new Date(Date.now() + 100 * 365 * 86_400_000).toISOString(),
      '9999-12-31T23:59:59Z',
    ]) {
      for (const path of [base, `/webhooks/history?since=${encodeURIComponent(since)}`]) {
        const started = Date.now();
        const answer = await call('GET', `${path}&until=${encodeURIComponent(until)}`, { key: owner.apiKey });
        expect(answer.status, `${until}: ${answer.text}`).toBe(200);
        // Far inside the function's timeout: the window is the retention's days, not a century's.
        expect(Date.now() - started).toBeLessThan(5_000);
        expect(answer.body.records.length).toBe(Math.min(answer.body.count, 20));
      }
    }
    const future = await call(
      'GET',
      '/webhooks/history?since=9999-01-01T00:00:00Z&until=9999-12-31T23:59:59Z',
      {
        key: owner.apiKey,
      },
    );
    expect(future.status, future.text).toBe(200);
    expect(future.body).toEqual({ count: 0, records: [] });
  });

  it("reads as much for another user's busy webhook as for an id nobody has (item 15)", async () => {
    useLocalCloudEnv();
    const { queryHistory } = await import('../../../shared/webhooks/api/history');
    const { HistoryQuerySchema } = await import('../../../shared/webhooks/history-model');
    const caller = { userId: owner.userId, name: 'bounds-owner', permissions: [] };
    /** Items DynamoDB read (scanned, or got by key) while `run` ran in this worker. */
    const itemsRead = async (run: () => Promise<unknown>): Promise<number> => {
      let read = 0;
      await watchDynamoDbCalls(run, (_command, output) => {
        const { ScannedCount, Item, Responses } = (output ?? {}) as {
          ScannedCount?: number;
          Item?: unknown;
          Responses?: Record<string, unknown[]>;
        };
        read += ScannedCount ?? (Item ? 1 : 0);
        for (const items of Object.values(Responses ?? {})) read += items.length;
      });
      return read;
    };
    const history = (webhookId: number) =>
      queryHistory(caller, HistoryQuerySchema.parse({ webhookId: String(webhookId) }));
    const unused = 2 ** 50 + (randomBytes(4).readUInt32BE(0) % 1_000_000);
    const busyRead = await itemsRead(() => history(busy));
    const unusedRead = await itemsRead(() => history(unused));
    expect(await history(busy)).toEqual({ count: 0, records: [] });
    // One item per write shard at most (its first index entry) and the webhook item: never its index.
    expect(busyRead).toBeLessThanOrEqual(unusedRead + 8 + 1);
    expect(busyRead).toBeLessThan(20);
    // The owner's own webhook is still listed.
    const own = await history(ownHook);
    expect(own.count).toBe(10);
    // Through the API: the same empty answer.
    const answer = await call('GET', `/webhooks/history?webhookId=${busy}`, { key: owner.apiKey });
    expect(answer.body).toEqual({ count: 0, records: [] });
  });
});
