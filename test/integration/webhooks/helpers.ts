import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { SQSRecord } from 'aws-lambda';
import { afterAll, beforeAll, expect } from 'vitest';
import type { NotificationMessageInput } from '../../../shared/notifications/message';
import type { StoredHistoryRecord } from '../../../shared/webhooks/store/history-keys';
import { call, eventually, logFile, untilDone, useLocalCloudEnv, useOwnCloud } from '../../support/api';
import { type RunningCloud, startCloudProcess } from '../../support/local-cloud-process';
import { type Receiver, startReceiver } from './receiver';

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

export async function historyFor(key: string, webhookId: number, atLeast: number, ms = 30_000) {
  return eventually(
    async () => (await allHistory(key)).filter((r) => r.webhooksId === webhookId),
    (records) => records.length >= atLeast,
    ms,
  );
}

/**
 * The cloud log's JSON lines (handlers log one JSON object per line); with `containing`, only
 * the lines that hold one of those strings (parsing every line of a long run's log is slow).
 */
export async function logLines(...containing: string[]): Promise<Record<string, unknown>[]> {
  const text = await readFile(logFile(), 'utf8');
  return text
    .split('\n')
    .filter(
      (line) => line.includes('{"') && (containing.length === 0 || containing.some((c) => line.includes(c))),
    )
    .flatMap((line) => {
      try {
        return [JSON.parse(line.slice(line.indexOf('{'))) as Record<string, unknown>];
      } catch {
        return [];
      }
    });
}

type NotificationType = NotificationMessageInput['notificationType'];

/**
 * Puts on the deliveries queue, as fan-out would have, a delivery of a notification `text` to
 * `recipient` for `webhookId`: what was queued before a status change comes due after it.
 */
async function queueDelivery(
  webhookId: number,
  recipient: number,
  notificationType: NotificationType,
  text: string,
) {
  useLocalCloudEnv();
  const { deliveryMessages } = await import('../../../shared/webhooks/pipeline/fan-out');
  const { notificationDigest } = await import('../../../shared/webhooks/pipeline/message');
  const { sendAll } = await import('../../../shared/store/queues');
  const { buildNotification } = await import('../../../shared/notifications/publisher');
  const queued = buildNotification({ notificationType, text, recipients: [recipient] });
  await sendAll(
    'deliveries',
    deliveryMessages(queued, notificationDigest(`p:queued-${webhookId}`), [webhookId]).map((m) =>
      JSON.stringify(m),
    ),
  );
}

/**
 * For a disabled webhook: a delivery queued before the disable (`queueDelivery`) is recorded as
 * skipped, never sent, with the disable's `reason` in its record; a notification published now
 * is not fanned out to it. Answers the skipped record.
 */
export async function skippedWhileDisabled(
  owner: { userId: number; apiKey: string },
  webhookId: number,
  notificationType: NotificationType,
  reason: RegExp,
): Promise<AnyRecord | undefined> {
  await queueDelivery(webhookId, owner.userId, notificationType, 'queued before');
  const [skipped] = await untilDone(
    async () => (await allHistory(owner.apiKey)).filter((r) => r.webhooksId === webhookId),
    (list) => list.length >= 1,
    { progress: (list) => list.length, what: 'the skipped attempt' },
  );
  expect(skipped).toMatchObject({
    statusCode: 0,
    skipped: true,
    attempt: 1,
    request: { text: 'queued before' },
    response: { body: { code: 'EWEBHOOKDISABLED', connect: false } },
  });
  expect(skipped?.response.body.message).toMatch(reason);
  const whileDisabled = await publish({
    notificationType,
    text: 'while disabled',
    recipients: [owner.userId],
  });
  expect(await fannedOutTo(whileDisabled.messageId)).not.toContain(webhookId);
  return skipped;
}

/** The webhook ids fan-out sent the notification (by its SQS message id) to, once it has. */
export async function fannedOutTo(messageId: string): Promise<number[]> {
  const line = await untilDone(
    async () =>
      (await logLines(messageId)).find(
        (l) => l.message === 'notification fanned out' && l.messageId === messageId,
      ),
    (found) => found !== undefined,
    { progress: () => Date.now() >= 0, what: `fan-out of ${messageId}` },
  );
  return (line?.webhookIds as number[] | undefined) ?? [];
}

/** What the deliveries consumer logs as an attempt's next step when the delivery is over. */
const ENDED = new Set(['delivered', 'gone', 'exhausted']);

/**
 * Waits until the deliveries consumer has logged, for each of `deliveryIds`, an attempt after
 * which nothing is scheduled: a delivered attempt (named in its batch's line), or an attempt's
 * own line whose `next` is delivered, gone or exhausted. No retry of these deliveries is coming.
 */
export async function deliveriesEnded(deliveryIds: readonly string[]): Promise<void> {
  const ended = async () =>
    new Set(
      (await logLines(...deliveryIds)).flatMap((l) => {
        if (l.message === 'delivery attempt') return ENDED.has(String(l.next)) ? [String(l.deliveryId)] : [];
        return String(l.message).endsWith(' batch') && Array.isArray(l.delivered)
          ? l.delivered.map(String)
          : [];
      }),
    );
  await untilDone(
    async () => {
      const done = await ended();
      return deliveryIds.filter((id) => !done.has(id));
    },
    (open) => open.length === 0,
    { progress: (open) => open.length, what: 'the last attempts of the deliveries' },
  );
}

/**
 * Waits until each notification (by the message id `publish` answered) has been handled by
 * fan-out: fanned out, or found already done (a copy of a notification published twice). Every
 * delivery fan-out makes for them is on the deliveries queue by then.
 */
export async function fanOutsEnded(messageIds: readonly string[]): Promise<void> {
  await untilDone(
    async () => {
      const handled = new Set(
        (await logLines(...messageIds))
          .filter((l) => l.message === 'notification fanned out' || l.message === 'fan-out step already done')
          .map((l) => String(l.messageId)),
      );
      return messageIds.filter((id) => !handled.has(id));
    },
    (open) => open.length === 0,
    { progress: (open) => open.length, what: 'fan-out of the notifications' },
  );
}

/** A notification type no test subscribes to: the marker's own. */
const MARKER_TYPE = 'modelCommentResolved';
let markers = 0;

/**
 * A marker that the pipeline has moved past everything queued before the call: a notification
 * to a webhook of `owner` on `receiver`, through the notifications queue, fan-out and the
 * deliveries queue, waited for until its POST and its history record are there. Both queues hand
 * out messages oldest first, so a delivery queued before it (a duplicate, a wrong recipient) has
 * been POSTed by then. A test that proves something was not sent checks after this marker, once
 * fan-out and the deliveries it proves things about have ended (`fanOutsEnded`,
 * `deliveriesEnded`: a retry waiting for its delay is not on the queue yet).
 */
export async function pipelineMarker(receiver: Receiver, owner: { userId: number; apiKey: string }) {
  const name = `marker-${++markers}-${randomUUID().slice(0, 8)}`;
  const [id] = await createHooks(owner.apiKey, [personalHook(receiver, name, MARKER_TYPE)]);
  await publish({ notificationType: MARKER_TYPE, text: name, recipients: [owner.userId] });
  await untilDone(
    async () => ({
      posts: receiver.byPath(`/${name}`).length,
      records: (await allHistory(owner.apiKey, `&webhookId=${id}`)).length,
    }),
    ({ posts, records }) => posts > 0 && records > 0,
    { what: 'the pipeline marker' },
  );
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

/**
 * A POST timeout that only guards against a hang, for clouds whose receiver answers at once: at
 * the test clouds' 1.5 s a loaded machine can read a 200 late, which is (rightly) recorded as a
 * timed-out attempt and retried, so the receiver sees two 200s for one delivery.
 */
export const HANG_GUARD_POST_TIMEOUT = { WEBHOOK_TIMEOUT_MS: '15000' };

/**
 * Runs this file's tests against a local cloud of its own (`useOwnCloud`), with a receiver for
 * its webhooks: both start before the file's tests and stop after them. `env` overrides the
 * test cloud's defaults (`test/support/local-cloud-process.ts`).
 */
export function onOwnCloud(env?: Record<string, string>): { readonly receiver: Receiver } {
  let cloud: RunningCloud | undefined;
  let receiver: Receiver | undefined;
  beforeAll(async () => {
    [cloud, receiver] = await Promise.all([startCloudProcess(env ? { env } : {}), startReceiver()]);
    useOwnCloud(cloud);
  });
  afterAll(async () => {
    await receiver?.close();
    await cloud?.stop();
  });
  return {
    get receiver() {
      if (!receiver) throw new Error('the receiver starts before the tests');
      return receiver;
    },
  };
}
