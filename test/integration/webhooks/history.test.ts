import { randomBytes } from 'node:crypto';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { call, createKey, untilDone, useLocalCloudEnv } from '../../support/api';
import type { AnyRecord } from './helpers';

type Query = Record<string, string | number | boolean | undefined>;

function qs(query: Query): string {
  const parts = Object.entries(query)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}=${encodeURIComponent(String(v))}`);
  return parts.length ? `?${parts.join('&')}` : '';
}

/** The brute-force reference: filter, sort and slice every record the caller may see. */
function reference(all: AnyRecord[], query: Query) {
  const matching = all
    .filter((r) => query.notificationType === undefined || r.notificationType === query.notificationType)
    .filter((r) => {
      if (query.successOrFailure === undefined) return true;
      const ok = r.statusCode >= 200 && r.statusCode < 300;
      return query.successOrFailure === 'success' ? ok : !ok;
    })
    .sort((a, b) => (query.sortOrder === 'asc' ? a.id - b.id : b.id - a.id));
  const offset = Number(query.offset ?? 0);
  const pageSize = Number(query.pageSize ?? 20);
  return { count: matching.length, ids: matching.slice(offset, offset + pageSize).map((r) => r.id) };
}

const TYPES = ['modelAccessRequested', 'modelCommentCreated', 'queryCreated'] as const;
const STATUSES = [200, 204, 500, 302, 410, 429];

describe('history listing agrees with a brute-force reference', () => {
  /** Personal records written with one write shard, and with as many as the cloud reads. */
  const users: Record<'oneShard' | 'allShards', { userId: number; apiKey: string; records: AnyRecord[] }> = {
    oneShard: { userId: 0, apiKey: '', records: [] },
    allShards: { userId: 0, apiKey: '', records: [] },
  };
  let admin: { userId: number; apiKey: string };
  const adminPersonal: AnyRecord[] = [];

  beforeAll(async () => {
    useLocalCloudEnv();
    admin = await createKey('history-admin', true);
    const { writeHistoryRecord } = await import('../../../shared/webhooks/store/history');
    // A webhook id no real webhook of this cloud has: other files read real webhooks' indexes.
    const webhookId = 800_000_000 + (randomBytes(3).readUIntBE(0, 3) % 1_000_000);
    const write = async (owner: number, global: boolean, i: number) =>
      writeHistoryRecord({
        request: { text: `r${i}`, metadata: {}, webhookId, webhookName: 'w' },
        response: { body: '' },
        statusCode: STATUSES[i % STATUSES.length] as number,
        durationMs: i,
        notificationType: TYPES[(i * 7) % TYPES.length] as string,
        webhooksActivityId: i,
        webhooksId: webhookId,
        url: 'http://127.0.0.1:9/x',
        name: 'w',
        actionType: 'triggered',
        createdBy: owner,
        deliveryId: `msg_${randomBytes(16).toString('hex')}_${webhookId}`,
        attempt: 1,
        global,
      });
    // Reads cover the cloud's shards (the suite's stage settings), so records written with fewer are read too.
    const cloudShards = process.env.HISTORY_WRITE_SHARDS;
    expect(Number(cloudShards)).toBeGreaterThan(1);
    for (const [name, shards] of [
      ['oneShard', '1'],
      ['allShards', cloudShards],
    ] as const) {
      process.env.HISTORY_WRITE_SHARDS = shards;
      const user = await createKey(`history-${name}`);
      Object.assign(users[name], user);
      for (let i = 0; i < 45; i++) users[name].records.push(await write(user.userId, false, i));
    }
    process.env.HISTORY_WRITE_SHARDS = cloudShards;
    for (let i = 0; i < 12; i++) adminPersonal.push(await write(admin.userId, false, i));
    for (let i = 0; i < 9; i++) await write(admin.userId, true, i);
    // `count` comes from the stream consumer's counters: wait until it has caught up.
    for (const user of [users.oneShard, users.allShards]) {
      await untilDone(
        async () => (await call('GET', '/webhooks/history?pageSize=1', { key: user.apiKey })).body.count,
        (count) => count === 45,
        { what: 'history counts' },
      );
    }
  });

  const queries: Query[] = [
    {},
    { pageSize: 7 },
    { pageSize: 7, offset: 7 },
    { pageSize: 10, offset: 40 },
    { offset: 100 },
    { sortOrder: 'asc', pageSize: 5, offset: 3 },
    { sortOrder: 'ASC', sortField: 'id', pageSize: 50 },
    { sortField: 'updatedAt', pageSize: 4, offset: 2 },
    { notificationType: 'modelCommentCreated' },
    { notificationType: 'queryCreated', sortOrder: 'asc', pageSize: 3, offset: 2 },
    { successOrFailure: 'success', pageSize: 100 },
    { successOrFailure: 'failure', pageSize: 6, offset: 6 },
    { notificationType: 'modelAccessRequested', successOrFailure: 'failure', pageSize: 2, offset: 1 },
    { notificationType: 'userCreated' },
  ];

  it.each((['oneShard', 'allShards'] as const).flatMap((name) => queries.map((query) => ({ name, query }))))(
    'personal records, $name: $query',
    async ({ name, query }) => {
      const user = users[name];
      const page = await call('GET', `/webhooks/history${qs(query)}`, { key: user.apiKey });
      expect(page.status).toBe(200);
      const expected = reference(user.records, {
        ...query,
        sortOrder: String(query.sortOrder ?? 'desc').toLowerCase(),
      });
      expect(page.body.count).toBe(expected.count);
      expect(Number.isInteger(page.body.count)).toBe(true);
      expect(page.body.records.map((r: AnyRecord) => r.id)).toEqual(expected.ids);
    },
  );

  it('returns nothing when neither personal nor global records are included', async () => {
    const page = await call('GET', '/webhooks/history?includeUser=false', { key: users.oneShard.apiKey });
    expect(page.body).toEqual({ count: 0, records: [] });
  });

  it('returns full records with every specification field', async () => {
    const page = await call('GET', '/webhooks/history?pageSize=1', { key: users.allShards.apiKey });
    expect(Object.keys(page.body.records[0]).sort()).toEqual(
      [
        'actionType',
        'attempt',
        'createdAt',
        'createdBy',
        'deliveryId',
        'durationMs',
        'id',
        'name',
        'notificationType',
        'request',
        'response',
        'statusCode',
        'updatedAt',
        'url',
        'webhooksActivityId',
        'webhooksId',
      ].sort(),
    );
  });

  it.each([
    { includeGlobal: true },
    { includeGlobal: true, includeUser: false, pageSize: 4, offset: 2 },
    { includeGlobal: true, sortOrder: 'asc', pageSize: 9, offset: 5 },
    { includeGlobal: true, successOrFailure: 'failure', pageSize: 100 },
    { includeGlobal: true, notificationType: 'queryCreated', successOrFailure: 'success' },
  ] as Query[])('admins merge their personal records with all global records: %o', async (query) => {
    const { documentClient } = await import('../../../shared/store/clients');
    const { tableName } = await import('../../../shared/store/tables');
    // Other test files deliver to global webhooks concurrently, and `count` follows the records
    // through the stream consumer: compare against a snapshot that did not change while the
    // page was read, once the count has caught up with it.
    const snapshot = async () => {
      const items: AnyRecord[] = [];
      let start: Record<string, unknown> | undefined;
      do {
        const out = await documentClient.send(
          new ScanCommand({
            TableName: tableName('deliveryHistory'),
            FilterExpression: 'audience = :g',
            ExpressionAttributeValues: { ':g': 'global' },
            ExclusiveStartKey: start,
          }),
        );
        items.push(...((out.Items ?? []) as AnyRecord[]));
        start = out.LastEvaluatedKey;
      } while (start);
      return items;
    };
    for (let round = 0; ; round++) {
      const before = await snapshot();
      const page = await call('GET', `/webhooks/history${qs(query)}`, { key: admin.apiKey });
      const after = await snapshot();
      const visible = [...(query.includeUser === false ? [] : adminPersonal), ...after];
      const expected = reference(visible, query);
      const settled = before.length === after.length && page.body.count === expected.count;
      if (!settled && round < 40) {
        await new Promise((r) => setTimeout(r, 250));
        continue;
      }
      expect(page.body.count).toBe(expected.count);
      expect(page.body.records.map((r: AnyRecord) => r.id)).toEqual(expected.ids);
      return;
    }
  });
});
