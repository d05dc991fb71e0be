/**
 * The legacy history layout moves into the layout of ADR 0006: ids, times and contents kept,
 * listed and counted through the API, and a second run changes nothing.
 */
import { randomBytes } from 'node:crypto';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { call, createKey, untilDone, useLocalCloudEnv } from '../../support/api';
import type { AnyRecord } from './helpers';

describe('history migration', () => {
  it('moves legacy records with their ids, and is idempotent', async () => {
    useLocalCloudEnv();
    const { documentClient } = await import('../../../shared/store/clients');
    const { tableName } = await import('../../../shared/store/tables');
    const { migrateLegacyHistory } = await import('../../../shared/webhooks/store/history-migration');
    const owner = await createKey('migration-owner');
    const now = Date.now();
    const legacy = [0, 1, 2].map((i) => {
      const createdAt = new Date(now - 60_000 + i).toISOString();
      return {
        id: (now - 60_000 + i) * 1000 + 7,
        // Legacy records stored the request and a JSON answer as documents.
        request: { text: `legacy ${i}`, metadata: { modelId: i }, webhookId: 5, webhookName: 'old' },
        response: i === 2 ? { body: { code: 'ECONNREFUSED', connect: true } } : { body: { ok: true } },
        statusCode: i === 2 ? 500 : 200,
        notificationType: 'queryCreated',
        webhooksActivityId: i,
        webhooksId: 5,
        url: 'http://127.0.0.1:9/old',
        name: 'old',
        actionType: 'triggered',
        createdBy: owner.userId,
        deliveryId: `msg_${randomBytes(16).toString('hex')}_5`,
        attempt: 1,
        createdAt,
        updatedAt: createdAt,
        audience: `user#${owner.userId}`,
        expiresAt: Math.floor(now / 1000) + 86_400,
        aud: `a|user#${owner.userId}`,
      };
    });
    for (const item of legacy)
      await documentClient.send(new PutCommand({ TableName: tableName('webhookHistory'), Item: item }));

    const first = await migrateLegacyHistory({ deleteSource: true });
    expect(first.copied).toBeGreaterThanOrEqual(3);
    const again = await migrateLegacyHistory({ deleteSource: true });
    expect(again).toMatchObject({ copied: 0, scanned: 0 });
    const left = await documentClient.send(
      new GetCommand({ TableName: tableName('webhookHistory'), Key: { id: legacy[0]?.id } }),
    );
    expect(left.Item).toBeUndefined();

    const page = await untilDone(
      async () => (await call('GET', '/webhooks/history?sortOrder=asc', { key: owner.apiKey })).body,
      (body) => body.count === 3,
      { progress: (body) => body.count, what: 'migrated history counts' },
    );
    expect(page.records.map((r: AnyRecord) => r.id)).toEqual(legacy.map((l) => l.id));
    expect(page.records[0]).toMatchObject({
      request: legacy[0]?.request,
      response: { body: { ok: true } },
      createdAt: legacy[0]?.createdAt,
      updatedAt: legacy[0]?.createdAt,
      deliveryId: legacy[0]?.deliveryId,
    });
    const failures = await call('GET', '/webhooks/history?successOrFailure=failure', { key: owner.apiKey });
    expect(failures.body.records.map((r: AnyRecord) => r.id)).toEqual([legacy[2]?.id]);
  });
});
