/** Bulk seeding with BatchWriteItem (25 items a call, unprocessed items retried, calls in parallel). */
import { BatchWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { runPool, sleep } from './stats';

export async function batchPut(
  client: DynamoDBDocumentClient,
  items: readonly { table: string; item: Record<string, unknown> }[],
  concurrency = 8,
): Promise<void> {
  const chunks: { table: string; item: Record<string, unknown> }[][] = [];
  for (let i = 0; i < items.length; i += 25) chunks.push(items.slice(i, i + 25));
  await runPool(chunks.length, concurrency, async (index) => {
    const chunk = chunks[index] ?? [];
    let request: Record<string, { PutRequest: { Item: Record<string, unknown> } }[]> = {};
    for (const { table, item } of chunk) {
      const list = request[table] ?? [];
      list.push({ PutRequest: { Item: item } });
      request[table] = list;
    }
    for (let round = 0; Object.keys(request).length > 0; round++) {
      if (round === 10) throw new Error('BatchWriteItem kept items unprocessed');
      const out = await client.send(new BatchWriteCommand({ RequestItems: request }));
      request = (out.UnprocessedItems ?? {}) as typeof request;
      if (Object.keys(request).length > 0) await sleep(20 * (round + 1));
    }
  });
}
