/**
 * The suite's in-memory clouds keep their tables in one DynamoDB Local per run
 * (test/support/shared-dynamodb.ts, LOCAL_DYNAMODB_ENDPOINT): each cloud's tables under a prefix
 * of its own, deleted at its stop, and a cloud that keeps its state refuses the shared one.
 */
import { ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { deleteTables, ensureTables, localDynamoClient } from '../../../infra/local/dynamodb';
import { SHARED_DYNAMODB_ENV, startCloudProcess } from '../../support/local-cloud-process';

const endpoints = inject('endpoints');
const client = localDynamoClient(endpoints.dynamodb);
afterAll(() => client.destroy());

async function tableNames(): Promise<string[]> {
  const names: string[] = [];
  let start: string | undefined;
  do {
    const page = await client.send(new ListTablesCommand({ ExclusiveStartTableName: start }));
    names.push(...(page.TableNames ?? []));
    start = page.LastEvaluatedTableName;
  } while (start);
  return names;
}

describe('the run’s shared DynamoDB Local', () => {
  it('holds the tier cloud’s tables, all under one prefix of that cloud’s own', () => {
    expect(endpoints.dynamodb).toBe(process.env[SHARED_DYNAMODB_ENV]);
    const physical = Object.values(endpoints.tables);
    expect(physical.length).toBeGreaterThan(0);
    const prefixes = new Set(physical.map((name) => /^(causeway-local-[0-9a-f]{8})-/.exec(name)?.[1]));
    expect([...prefixes]).toHaveLength(1);
    expect([...prefixes][0]).toBeDefined();
  });

  it('deletes one cloud’s tables at its stop and keeps every other cloud’s', async () => {
    const other = 'causeway-local-5ca1ab1e';
    const created = Object.values(await ensureTables(client, other));
    expect(await tableNames()).toEqual(
      expect.arrayContaining([...created, ...Object.values(endpoints.tables)]),
    );

    await deleteTables(client, other);
    const left = await tableNames();
    expect(left.filter((name) => name.startsWith(`${other}-`))).toEqual([]);
    expect(left).toEqual(expect.arrayContaining(Object.values(endpoints.tables)));
  });

  it('is refused by a cloud that keeps its state', async () => {
    await expect(
      startCloudProcess({ durable: true, env: { LOCAL_DYNAMODB_ENDPOINT: endpoints.dynamodb } }),
    ).rejects.toThrow(/LOCAL_DYNAMODB_ENDPOINT needs LOCAL_STORAGE=memory/);
  });
});
