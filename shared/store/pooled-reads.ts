/**
 * Reads pooled per batch (./batch-pool.ts; ADR 0023 "Batched reads"): the records' reads of one
 * table go out as one `BatchGetItem` (`batchGetAll`, each key once), eventually consistent as a
 * `GetItem` without `ConsistentRead` is. A read that fails fails every caller of that table.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { kindsByName, type Pending, type PoolOptions, pooledCall } from './batch-pool';
import { documentClient } from './clients';
import { BATCH_GET_MAX_KEYS, batchGetAll, keyIdentity } from './read';

type Item = Record<string, unknown>;

const readsOf = kindsByName<Item, Item | undefined>((table) => ({
  key: `get ${table}`,
  size: () => 1,
  full: BATCH_GET_MAX_KEYS,
  call: (pending, options) => getTogether(table, pending, options),
}));

/** Reads the callers' keys of one table in one go (each key once) and answers each with its item. */
async function getTogether(
  table: string,
  gets: readonly Pending<Item, Item | undefined>[],
  options: PoolOptions,
): Promise<void> {
  const attributes = Object.keys(gets[0]?.input ?? {});
  const identity = (item: Item) => keyIdentity(item, attributes);
  const keys = new Map(gets.map((get) => [identity(get.input), get.input]));
  const items = await (options.get ?? batchGetAll)(table, [...keys.values()]);
  const found = new Map(items.map((item) => [identity(item as Item), item as Item]));
  for (const get of gets) get.resolve(found.get(identity(get.input)));
}

/**
 * The item of `table` under `key` (every key of a table with the same attributes), read
 * eventually consistent together with the other records' pooled reads (one `GetItem` outside a
 * pool's record); undefined when there is none.
 */
export async function getPooled<T = Item>(table: string, key: Item): Promise<T | undefined> {
  const pooled = pooledCall(readsOf(table), key);
  if (pooled) return (await pooled) as T | undefined;
  const out = await documentClient.send(new GetCommand({ TableName: table, Key: key }));
  return out.Item as T | undefined;
}
