import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { SQSRecord } from 'aws-lambda';
import { inject } from 'vitest';
import type { StoredHistoryRecord } from '../../../shared/webhooks/store/history-keys';
import { call, eventually, untilDone, useLocalCloudEnv } from '../../support/api';

export async function createHooks(key: string, webhooks: Record<string, unknown>[]): Promise<number[]> {
  const created = await call('POST', '/webhooks', { key, body: { webhooks } });
  if (created.status !== 201 || created.body.errors.length > 0) {
    throw new Error(`webhooks not created: ${created.text}`);
  }
  return created.body.createdWebhooks.map((w: { id: number }) => w.id);
}

export async function publish(input: {
  notificationType: string;
  text: string;
  metadata?: Record<string, unknown>;
  recipients?: number[];
  id?: string;
}) {
  useLocalCloudEnv();
  const { publishNotification } = await import('../../../shared/notifications/publisher');
  return publishNotification(input as Parameters<typeof publishNotification>[0]);
}

// biome-ignore lint/suspicious/noExplicitAny: history records are asserted field by field
export type AnyRecord = Record<string, any>;

/** Every history record the key's owner sees (all pages). */
export async function allHistory(key: string, query = ''): Promise<AnyRecord[]> {
  const records: AnyRecord[] = [];
  for (let offset = 0; ; offset += 100) {
    const page = await call('GET', `/webhooks/history?pageSize=100&offset=${offset}${query}`, { key });
    if (page.status !== 200) throw new Error(`history: ${page.text}`);
    records.push(...page.body.records);
    if (page.body.records.length < 100) return records;
  }
}

export async function historyFor(key: string, webhookId: number, atLeast: number, ms = 15_000) {
  return eventually(
    async () => (await allHistory(key)).filter((r) => r.webhooksId === webhookId),
    (records) => records.length >= atLeast,
    ms,
  );
}

/** The cloud log's JSON lines (handlers log one JSON object per line). */
export async function logLines(): Promise<Record<string, unknown>[]> {
  const text = await readFile(inject('logFile'), 'utf8');
  return text
    .split('\n')
    .filter((line) => line.includes('{"'))
    .flatMap((line) => {
      try {
        return [JSON.parse(line.slice(line.indexOf('{'))) as Record<string, unknown>];
      } catch {
        return [];
      }
    });
}

/** The webhook ids fan-out sent the notification (by its SQS message id) to, once it has. */
export async function fannedOutTo(messageId: string): Promise<number[]> {
  const line = await untilDone(
    async () =>
      (await logLines()).find((l) => l.message === 'notification fanned out' && l.messageId === messageId),
    (found) => found !== undefined,
    { progress: () => Date.now() >= 0, what: `fan-out of ${messageId}` },
  );
  return (line?.webhookIds as number[] | undefined) ?? [];
}

/** Waits (with a hang guard only) until `count()` reaches `n`. */
export function untilCount(count: () => number, n: number, what: string): Promise<number> {
  return untilDone(
    async () => count(),
    (c) => c >= n,
    { what },
  );
}

/**
 * Writes history items built by `newHistoryItem` (the pipeline's own layout) with BatchWriteItem,
 * 25 a call, 8 calls at a time: seeding thousands of records costs what the test is about, not
 * one conditional PutItem each.
 */
export async function batchPutHistory(items: readonly StoredHistoryRecord[]): Promise<void> {
  useLocalCloudEnv();
  const { documentClient } = await import('../../../shared/store/clients');
  const { tableName } = await import('../../../shared/store/tables');
  const table = tableName('deliveryHistory');
  const chunks: StoredHistoryRecord[][] = [];
  for (let i = 0; i < items.length; i += 25) chunks.push(items.slice(i, i + 25));
  const writeChunk = async (chunk: StoredHistoryRecord[]) => {
    let request: Record<string, { PutRequest: { Item: Record<string, unknown> } }[]> = {
      [table]: chunk.map((item) => ({ PutRequest: { Item: { ...item } } })),
    };
    for (let round = 0; (request[table]?.length ?? 0) > 0; round++) {
      if (round === 20) throw new Error('BatchWriteItem kept history items unprocessed');
      const out = await documentClient.send(new BatchWriteCommand({ RequestItems: request }));
      request = (out.UnprocessedItems ?? {}) as typeof request;
      if ((request[table]?.length ?? 0) > 0) await new Promise((r) => setTimeout(r, 20 * (round + 1)));
    }
  };
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      for (let chunk = chunks.shift(); chunk !== undefined; chunk = chunks.shift()) await writeChunk(chunk);
    }),
  );
}

/** An SQS record as Lambda hands it to a consumer, for calling a consumer's record function directly. */
export function sqsRecordOf(
  body: string,
  options: { messageId?: string; attributes?: Partial<SQSRecord['attributes']> } = {},
): SQSRecord {
  const now = String(Date.now());
  return {
    messageId: options.messageId ?? randomUUID(),
    receiptHandle: 'unused: not a message of a queue',
    body,
    attributes: {
      ApproximateReceiveCount: '1',
      SentTimestamp: now,
      SenderId: 'test',
      ApproximateFirstReceiveTimestamp: now,
      ...options.attributes,
    },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:test',
    awsRegion: 'us-east-1',
  };
}

/**
 * One notifications-queue record through the fan-out consumer's edge, as its Lambda runs it:
 * what the step answered (`{deliveries}`); a step that did not finish throws.
 */
export async function processNotification(
  record: SQSRecord,
  lambda: { getRemainingTimeInMillis(): number },
): Promise<unknown> {
  const { handler } = await import('../../../functions/consumers/fan-out');
  const result = await handler.processRecord(record, lambda);
  if (result.kind !== 'done')
    throw new Error(`the fan-out step did not finish (${result.kind})`, {
      cause: result.kind === 'failed' ? result.error : undefined,
    });
  return result.result;
}

/** A personal webhook for one notification type, POSTing to `/<name>` of a test receiver. */
export function personalHook(receiver: { url(path: string): string }, name: string, type: string) {
  return {
    name,
    url: receiver.url(`/${name}`),
    global: false,
    notificationType: [type],
    actionType: 'receive',
  };
}

/**
 * Fails the DynamoDB commands `failing(command, table)` picks (by command name and table name) on
 * `client` with a service error, before the SDK's retries; returns the function that stops it.
 */
export function injectDynamoFailures(
  client: DynamoDBClient,
  failing: (command: string, table: string) => boolean,
): () => void {
  const name = `injectedFailure${Math.random().toString(36).slice(2)}`;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const command = String((context as { commandName?: string }).commandName);
      const table = String((args.input as { TableName?: string }).TableName ?? '');
      if (failing(command, table)) {
        const error = new Error('injected: the service is unavailable');
        error.name = 'InternalServerError';
        throw error;
      }
      return next(args);
    },
    { step: 'initialize', name },
  );
  return () => client.middlewareStack.remove(name);
}
