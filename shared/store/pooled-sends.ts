/**
 * Sends pooled per batch (./batch-pool.ts; ADR 0023 "Batched sends"): the records' messages to
 * one standard queue go out ten a `SendMessageBatch` (fewer where their bodies would pass SQS's
 * size for one call: `sendCalls`), each caller answered for its own entries only. An entry SQS
 * refuses fails its caller, not the records whose messages shared the call; a call that fails as
 * a whole (the network, SQS down) fails every caller with an entry in it, as it would have failed
 * each alone.
 */
import type { QueueName } from '../catalog/queues';
import { kindsByName, type Pending, type PoolOptions, pooledCall } from './batch-pool';
import { BATCH_MAX_ENTRIES, type QueueEntry, sendAll, sendCalls, sendEntries } from './queues';

type Send = readonly string[];

const sendsTo = kindsByName<Send, string[]>((queue) => ({
  key: `send ${queue}`,
  size: (bodies) => bodies.length,
  full: BATCH_MAX_ENTRIES,
  call: (pending, options) => sendTogether(queue as QueueName, pending, options),
}));

/**
 * Sends the callers' bodies in calls side by side, and answers each caller with its message ids
 * in the order of its bodies, or with the first error of one of its entries.
 */
async function sendTogether(
  queue: QueueName,
  sends: readonly Pending<Send, string[]>[],
  options: PoolOptions,
): Promise<void> {
  const sendCall = options.send ?? sendEntries;
  const entries: (QueueEntry & { caller: number; at: number })[] = sends.flatMap((send, caller) =>
    send.input.map((body, at) => ({ Id: `${caller}-${at}`, MessageBody: body, caller, at })),
  );
  const calls = sendCalls(entries);
  const answers = await Promise.allSettled(
    calls.map((call) =>
      sendCall(
        queue,
        call.map(({ Id, MessageBody }) => ({ Id, MessageBody })),
      ),
    ),
  );
  const ids = sends.map((send) => new Array<string>(send.input.length));
  const errors = new Map<number, unknown>();
  answers.forEach((answer, i) => {
    for (const entry of calls[i] ?? []) {
      const outcome =
        answer.status === 'fulfilled'
          ? (answer.value.get(entry.Id) ?? new Error(`SQS did not answer for a message to ${queue}`))
          : answer.reason;
      if (answer.status === 'fulfilled' && typeof outcome === 'string')
        (ids[entry.caller] as string[])[entry.at] = outcome;
      else if (!errors.has(entry.caller)) errors.set(entry.caller, outcome);
    }
  });
  sends.forEach((send, caller) => {
    if (errors.has(caller)) send.reject(errors.get(caller));
    else send.resolve(ids[caller] as string[]);
  });
}

/**
 * Sends every body to the standard queue `queue` together with the other records' pooled sends
 * (`sendAll` outside a pool) and answers the message ids in the order of `bodies`. Throws as
 * `sendAll` does, for this caller's entries only.
 */
export function sendPooled(queue: QueueName, bodies: readonly string[]): Promise<string[]> {
  if (bodies.length === 0) return sendAll(queue, bodies);
  return pooledCall(sendsTo(queue), bodies) ?? sendAll(queue, bodies);
}
