/**
 * The service's SQS adapter, the only module that talks to a queue: one client per container,
 * `sendAll` (SendMessageBatch in chunks of ten, entries SQS refused for a transient reason
 * retried with backoff, the message ids in the order of the bodies; `sendEntries` is one chunk,
 * which ./batch-pool.ts fills from several callers), its FIFO twin `sendInOrder`
 * (which never lets a retried entry fall behind a later one of its group), a delayed send, the
 * visibility of received messages (how the queue-consumer edge schedules a retry, ADR 0014) and
 * the dead-letter send with its reason.
 */
import {
  ChangeMessageVisibilityBatchCommand,
  ChangeMessageVisibilityCommand,
  SendMessageBatchCommand,
  type SendMessageBatchCommandOutput,
  type SendMessageBatchRequestEntry,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { dlqEnvVar, type QueueName, queueEnvVar } from '../catalog/queues';
import { requireEnv } from '../config/env';
import { withoutSdkLogging } from '../config/sdk-clients';
import { sleep } from './read';

// Its own module, not clients.ts: functions that only read DynamoDB do not load the SQS client.
// Queue URLs come from the catalog env; the client's own endpoint is authoritative.
const sqs = withoutSdkLogging(new SQSClient({ useQueueUrlAsEndpoint: false }));

/** SendMessageBatch's maximum entries per call. */
export const BATCH_MAX_ENTRIES = 10;
/**
 * The bodies of one SendMessageBatch call together, at most (SQS's payload limit of a call, 1 MiB):
 * SQS refuses a whole call past it, so ten 200 KB messages in one call would fail all ten. An
 * entry larger than that goes alone, and only its own send fails.
 */
const BATCH_MAX_BYTES = 1024 * 1024;

/**
 * `entries` in calls of SendMessageBatch: at most ten a call and BATCH_MAX_BYTES of bodies
 * together, in their order.
 */
export function sendCalls<T extends { MessageBody?: string | undefined }>(entries: readonly T[]): T[][] {
  const calls: T[][] = [];
  let call: T[] = [];
  let bytes = 0;
  for (const entry of entries) {
    const size = Buffer.byteLength(entry.MessageBody ?? '', 'utf8');
    if (call.length === BATCH_MAX_ENTRIES || (call.length > 0 && bytes + size > BATCH_MAX_BYTES)) {
      calls.push(call);
      call = [];
      bytes = 0;
    }
    call.push(entry);
    bytes += size;
  }
  if (call.length > 0) calls.push(call);
  return calls;
}
/** Calls per chunk before entries SQS keeps refusing make the send fail. */
const SEND_ROUNDS = 4;

/**
 * Sends every body to the queue and returns the message ids in the order of `bodies`. Throws
 * when SQS refuses an entry for the sender's fault (it would refuse it again) or still refuses
 * one after the retries; the entries before it may have been sent.
 */
export async function sendAll(queue: QueueName, bodies: readonly string[]): Promise<string[]> {
  const ids: string[] = [];
  for (const call of sendCalls(bodies.map((body, i) => ({ Id: String(i), MessageBody: body })))) {
    const outcomes = await sendEntries(queue, call);
    for (const [id, outcome] of outcomes) {
      if (outcome instanceof Error) throw outcome;
      ids[Number(id)] = outcome;
    }
  }
  return ids;
}

/** An entry of `sendEntries`: its id (unique among the call's entries) and its body. */
export type QueueEntry = { Id: string; MessageBody: string };

/**
 * Sends one call's entries (`sendCalls`) in a `SendMessageBatch` (a standard queue's), calling
 * again with those SQS refused for a transient reason, with backoff. Answers what became of each
 * entry by its id: the message id, or the error it was refused with (the sender's fault, or still
 * refused after the retries). Throws when the first call fails as a whole; a later call that
 * fails is the error of the entries it carried, so the entries sent before keep their ids.
 */
export async function sendEntries(
  queue: QueueName,
  entries: readonly QueueEntry[],
): Promise<Map<string, string | Error>> {
  if (sendCalls(entries).length > 1) throw new Error(`more entries than one call takes: ${entries.length}`);
  const url = requireEnv(queueEnvVar(queue));
  const outcomes = new Map<string, string | Error>();
  let left: SendMessageBatchRequestEntry[] = [...entries];
  for (let round = 0; left.length > 0; round++) {
    if (round === SEND_ROUNDS) {
      const error = new Error(`SQS refused ${left.length} message(s) for ${queue}`);
      for (const entry of left) outcomes.set(entry.Id as string, error);
      break;
    }
    let out: SendMessageBatchCommandOutput;
    if (round === 0) out = await sqs.send(new SendMessageBatchCommand({ QueueUrl: url, Entries: left }));
    else {
      await sleep(Math.random() * 25 * 2 ** round);
      try {
        out = await sqs.send(new SendMessageBatchCommand({ QueueUrl: url, Entries: left }));
      } catch (error) {
        for (const entry of left)
          outcomes.set(entry.Id as string, error instanceof Error ? error : new Error(String(error)));
        break;
      }
    }
    for (const ok of out.Successful ?? []) outcomes.set(ok.Id ?? '', ok.MessageId ?? '');
    const retry = new Set<string>();
    for (const failed of out.Failed ?? []) {
      if (failed.SenderFault)
        outcomes.set(
          failed.Id ?? '',
          new Error(`SQS refused a message for ${queue} (${failed.Code ?? 'unknown'})`),
        );
      else retry.add(failed.Id ?? '');
    }
    left = left.filter((entry) => retry.has(entry.Id as string));
  }
  return outcomes;
}

/** A message for a FIFO queue. */
export interface FifoMessage extends FifoSend {
  body: string;
}

/**
 * Sends FIFO messages in the order given and returns their message ids in that order. A batch
 * SQS answers in part is sent again from its first refused entry on, the entries after it
 * included: sending only the refused ones again would put them behind later messages of their
 * group. SQS drops the second send of an entry that did go (its deduplication id, for 5 minutes).
 * Throws as `sendAll` does; the messages before the one that failed may have been sent.
 */
export async function sendInOrder(queue: QueueName, messages: readonly FifoMessage[]): Promise<string[]> {
  const url = requireEnv(queueEnvVar(queue));
  const ids: string[] = [];
  let at = 0;
  let round = 0;
  while (at < messages.length) {
    // The next call's entries: ten, or fewer where their bodies would pass one call's size.
    const [entries = []] = sendCalls(
      messages.slice(at, at + BATCH_MAX_ENTRIES).map((m, j) => ({
        Id: String(at + j),
        MessageBody: m.body,
        MessageGroupId: m.groupId,
        MessageDeduplicationId: m.deduplicationId,
      })),
    );
    const out = await sqs.send(new SendMessageBatchCommand({ QueueUrl: url, Entries: entries }));
    for (const ok of out.Successful ?? []) ids[Number(ok.Id)] = ok.MessageId ?? '';
    const failed = out.Failed ?? [];
    const permanent = failed.find((f) => f.SenderFault);
    if (permanent) throw new Error(`SQS refused a message for ${queue} (${permanent.Code ?? 'unknown'})`);
    if (failed.length === 0) {
      at += entries.length;
      round = 0;
      continue;
    }
    round += 1;
    if (round === SEND_ROUNDS) throw new Error(`SQS refused ${failed.length} message(s) for ${queue}`);
    at = Math.min(...failed.map((f) => Number(f.Id)));
    await sleep(Math.random() * 25 * 2 ** round);
  }
  return ids;
}

/** SQS's longest per-message delay (seconds). */
const MAX_MESSAGE_DELAY_SECONDS = 900;
/** SQS's longest visibility timeout (seconds). */
const MAX_VISIBILITY_SECONDS = 43_200;

/** A FIFO queue's message: its group, and the id SQS drops a second send of it by. */
export interface FifoSend {
  groupId: string;
  deduplicationId: string;
}

/**
 * Sends one message that becomes visible after `delaySeconds` (at most 15 minutes). On a FIFO
 * queue (`fifo`) SQS refuses a per-message delay: the message goes to the end of its group.
 */
export async function sendDelayed(
  queue: QueueName,
  body: string,
  delaySeconds: number,
  fifo?: FifoSend,
): Promise<void> {
  await sqs.send(
    new SendMessageCommand({
      QueueUrl: requireEnv(queueEnvVar(queue)),
      MessageBody: body,
      ...(fifo
        ? { MessageGroupId: fifo.groupId, MessageDeduplicationId: fifo.deduplicationId }
        : { DelaySeconds: Math.min(MAX_MESSAGE_DELAY_SECONDS, Math.max(0, Math.floor(delaySeconds))) }),
    }),
  );
}

/**
 * Makes received messages visible again after `seconds` (whole seconds, at most 12 hours): how
 * the queue-consumer edge schedules a retry. Throws when SQS refuses one of them.
 */
export async function changeVisibility(
  queue: QueueName,
  receiptHandles: readonly string[],
  seconds: number,
): Promise<void> {
  const url = requireEnv(queueEnvVar(queue));
  const visibility = Math.min(MAX_VISIBILITY_SECONDS, Math.max(0, Math.ceil(seconds)));
  if (receiptHandles.length === 1) {
    await sqs.send(
      new ChangeMessageVisibilityCommand({
        QueueUrl: url,
        ReceiptHandle: receiptHandles[0],
        VisibilityTimeout: visibility,
      }),
    );
    return;
  }
  for (let i = 0; i < receiptHandles.length; i += BATCH_MAX_ENTRIES) {
    const out = await sqs.send(
      new ChangeMessageVisibilityBatchCommand({
        QueueUrl: url,
        Entries: receiptHandles
          .slice(i, i + BATCH_MAX_ENTRIES)
          .map((handle, j) => ({ Id: String(j), ReceiptHandle: handle, VisibilityTimeout: visibility })),
      }),
    );
    const refused = out.Failed?.[0];
    if (refused)
      throw new Error(`SQS refused a visibility change on ${queue} (${refused.Code ?? 'unknown'})`);
  }
}

/**
 * Puts a message on the queue's DLQ with the reason and the source queue as attributes. A FIFO
 * queue's DLQ is FIFO too: the message keeps its group there (`fifo`).
 */
export async function sendToDeadLetter(
  queue: QueueName,
  body: string,
  reason: string,
  fifo?: FifoSend,
): Promise<void> {
  await sqs.send(
    new SendMessageCommand({
      QueueUrl: requireEnv(dlqEnvVar(queue)),
      MessageBody: body.length > 0 ? body : '(empty)',
      ...(fifo ? { MessageGroupId: fifo.groupId, MessageDeduplicationId: fifo.deduplicationId } : {}),
      MessageAttributes: {
        reason: { DataType: 'String', StringValue: reason.slice(0, 1000) },
        sourceQueue: { DataType: 'String', StringValue: queue },
      },
    }),
  );
}
