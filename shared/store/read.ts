/**
 * Reads every repository shares: `getItem` (one item, consistent), `queryAll` (a Query followed to its last page, or
 * to `limit` items), `scanAll` (admin listings of small tables) and `batchGetAll` (BatchGetItem
 * in chunks of 100 keys, UnprocessedKeys retried with backoff, results in key order).
 */
import {
  BatchGetCommand,
  type BatchGetCommandOutput,
  GetCommand,
  QueryCommand,
  type QueryCommandInput,
  ScanCommand,
  type ScanCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { documentClient } from './clients';

type Item = Record<string, unknown>;

/** BatchGetItem's maximum keys per call. */
export const BATCH_GET_MAX_KEYS = 100;
/** Rounds of UnprocessedKeys retries before a batch read gives up. */
/** BatchGet requests in flight at once for one call. */
const BATCH_GET_CONCURRENCY = 8;
const BATCH_GET_ROUNDS = 8;

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One item by its key, read consistently (undefined when there is none). */
export async function getItem<T = Item>(table: string, key: Item): Promise<T | undefined> {
  const out = await documentClient.send(new GetCommand({ TableName: table, Key: key, ConsistentRead: true }));
  return out.Item as T | undefined;
}

/** Every item a Query selects, page after page; with `limit`, stops once that many were read. */
export async function queryAll<T = Item>(
  input: Omit<QueryCommandInput, 'ExclusiveStartKey' | 'Limit'>,
  options: { limit?: number } = {},
): Promise<T[]> {
  const { limit } = options;
  const items: T[] = [];
  let start: Item | undefined;
  do {
    const out = await documentClient.send(
      new QueryCommand({
        ...input,
        ...(limit !== undefined ? { Limit: limit - items.length } : {}),
        ExclusiveStartKey: start,
      }),
    );
    items.push(...((out.Items ?? []) as T[]));
    start = out.LastEvaluatedKey;
  } while (start && (limit === undefined || items.length < limit));
  return items;
}

/** Every item of a table (operator listings of small tables only: a scan reads everything). */
export async function scanAll<T = Item>(input: Omit<ScanCommandInput, 'ExclusiveStartKey'>): Promise<T[]> {
  const items: T[] = [];
  let start: Item | undefined;
  do {
    const out = await documentClient.send(new ScanCommand({ ...input, ExclusiveStartKey: start }));
    items.push(...((out.Items ?? []) as T[]));
    start = out.LastEvaluatedKey;
  } while (start);
  return items;
}

/** A key's identity over `attributes`, to match items to the keys asked for. */
export function keyIdentity(key: Item, attributes: readonly string[]): string {
  return JSON.stringify(attributes.map((a) => key[a]));
}

/**
 * The items stored under `keys` (all of one key shape), in the order of `keys`; keys with no
 * item are left out. Throws when DynamoDB still leaves keys unprocessed after the retries, so
 * a caller never mistakes throttling for missing items.
 */
export async function batchGetAll<T = Item>(table: string, keys: readonly Item[]): Promise<T[]> {
  const first = keys[0];
  if (first === undefined) return [];
  const attributes = Object.keys(first);
  const found = new Map<string, T>();
  const chunks: Item[][] = [];
  for (let i = 0; i < keys.length; i += BATCH_GET_MAX_KEYS)
    chunks.push(keys.slice(i, i + BATCH_GET_MAX_KEYS));
  // A few batches at a time: a long key list costs a few round trips, not one per 100 keys.
  await Promise.all(
    Array.from({ length: Math.min(BATCH_GET_CONCURRENCY, chunks.length) }, async () => {
      for (let chunk = chunks.shift(); chunk !== undefined; chunk = chunks.shift()) {
        let pending: Item[] | undefined = chunk;
        for (let round = 0; pending && pending.length > 0; round++) {
          if (round === BATCH_GET_ROUNDS) {
            throw new Error(`DynamoDB left ${pending.length} key(s) of ${table} unprocessed`);
          }
          if (round > 0) await sleep(Math.random() * 25 * 2 ** round);
          const out: BatchGetCommandOutput = await documentClient.send(
            new BatchGetCommand({ RequestItems: { [table]: { Keys: pending } } }),
          );
          for (const item of out.Responses?.[table] ?? [])
            found.set(keyIdentity(item, attributes), item as T);
          pending = out.UnprocessedKeys?.[table]?.Keys;
        }
      }
    }),
  );
  return keys.map((key) => found.get(keyIdentity(key, attributes))).filter((item) => item !== undefined);
}
