/**
 * The owner's webhook counters (shared/webhooks/store/owner-counters.ts) against the local
 * cloud's DynamoDB: created on first use from the owner's stored webhooks, and, once seen, not
 * read again by the same container (an owner's counters are never deleted).
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import type { WebhookItem } from '../../../shared/webhooks/model';
import { useLocalCloudEnv } from '../../support/api';
import { dynamoDbOperationsOf } from '../../support/dynamodb-operations';

let counters: typeof import('../../../shared/webhooks/store/owner-counters');
let store: typeof import('../../../shared/store/clients');
let tables: typeof import('../../../shared/store/tables');

beforeAll(async () => {
  useLocalCloudEnv();
  counters = await import('../../../shared/webhooks/store/owner-counters');
  store = await import('../../../shared/store/clients');
  tables = await import('../../../shared/store/tables');
});

/** An owner no other test uses (ids far above the counters' sequence). */
const freshOwner = () => 900_000_000 + Math.floor(Math.random() * 99_999_999);
const hook = (createdBy: number, url: string) => ({ createdBy, url }) as WebhookItem;

async function counterValue(name: string): Promise<unknown> {
  const out = await store.documentClient.send(
    new GetCommand({ TableName: tables.tableName('counters'), Key: { name }, ConsistentRead: true }),
  );
  return out.Item?.value;
}

describe("an owner's webhook counters", () => {
  it('are made from the stored webhooks on first use, and not read again once seen', async () => {
    const owner = freshOwner();
    const stored = [hook(owner, 'https://a.example/in'), hook(owner, 'https://b.example/in')];
    let listed = 0;
    const listByOwner = async () => {
      listed++;
      return stored;
    };
    // Same target as the first stored webhook, written differently (its canonical form counts).
    const next = hook(owner, 'HTTPS://A.example:443/in');

    const { operations: first } = await dynamoDbOperationsOf(() =>
      counters.ensureOwnerCounters(next, listByOwner),
    );
    expect(first.sort()).toEqual(['GetItemCommand', 'GetItemCommand', 'PutItemCommand', 'PutItemCommand']);
    expect(listed).toBe(1);
    expect(await counterValue(counters.ownerCounter(owner))).toBe(2);
    expect(await counterValue(counters.urlCounter(next))).toBe(1);

    // Seen: the next webhook change of the owner at that target reads nothing.
    const { operations: again } = await dynamoDbOperationsOf(() =>
      counters.ensureOwnerCounters(next, listByOwner),
    );
    expect(again).toEqual([]);
    expect(listed).toBe(1);

    // A target not seen yet: its counter is read (and made); the owner's total is not read again.
    const other = hook(owner, 'https://c.example/in');
    const { operations: third } = await dynamoDbOperationsOf(() =>
      counters.ensureOwnerCounters(other, listByOwner),
    );
    expect(third.sort()).toEqual(['GetItemCommand', 'PutItemCommand', 'PutItemCommand']);
    expect(await counterValue(counters.urlCounter(other))).toBe(0);
    expect(await counterValue(counters.ownerCounter(owner))).toBe(2);
  });

  it('keep a value another container wrote first: a counter that exists is not made again', async () => {
    const owner = freshOwner();
    const target = hook(owner, 'https://race.example/in');
    // The owner's total made meanwhile by a racing first use elsewhere, its count already moved on.
    const { PutCommand } = await import('@aws-sdk/lib-dynamodb');
    await store.documentClient.send(
      new PutCommand({
        TableName: tables.tableName('counters'),
        Item: { name: counters.ownerCounter(owner), value: 5 },
      }),
    );
    await counters.ensureOwnerCounters(target, async () => [target, target]);
    expect(await counterValue(counters.ownerCounter(owner))).toBe(5);
    expect(await counterValue(counters.urlCounter(target))).toBe(2);
  });
});
