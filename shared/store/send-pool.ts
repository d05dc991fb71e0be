/**
 * Sends pooled per batch (issue 42, ADR 0023 "Batched sends"): SQS bills a `SendMessageBatch` of
 * ten messages as one request, but each record of a queue consumer's batch sends its own few
 * messages (fan-out: one notification's deliveries, usually one). Inside a pool (`withSendPool`,
 * around a batch) the records' `sendPooled` calls wait for one another and go out together, ten
 * entries a call, each caller answered for its own entries only: an entry SQS refuses fails its
 * caller, not the records whose messages shared the call.
 *
 * A pooled send waits until every record still running waits on a send too (a record that ends
 * stops counting), ten entries are pending, or POOL_WAIT_MS have passed since the first pending
 * one, whichever comes first. A batch of one record (a quiet queue) sends at once; a record that
 * is slow to reach its send holds the others' at most POOL_WAIT_MS. Outside a pool, or called
 * from outside a record, `sendPooled` is `sendAll`.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { QueueName } from '../catalog/queues';
import { type QueueEntry, sendAll, sendEntries } from './queues';

/** SendMessageBatch's maximum entries per call. */
const BATCH_MAX_ENTRIES = 10;
/** The longest a pooled send waits for its batch's other records. */
const POOL_WAIT_MS = 20;

/** One caller's pending send. */
interface PendingSend {
  record: object;
  queue: QueueName;
  bodies: readonly string[];
  resolve: (ids: string[]) => void;
  reject: (error: unknown) => void;
}

/** How a pool sends one call's entries (`sendEntries`). */
export type SendEntries = typeof sendEntries;

/** How a pool sends (tests hand it their own sender and wait). */
export interface PoolOptions {
  send?: SendEntries;
  waitMs?: number;
}

class SendPool {
  constructor(private readonly options: PoolOptions) {}

  /** Records running now. */
  private running = 0;
  private pending: PendingSend[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;

  async record<T>(run: () => Promise<T>): Promise<T> {
    this.running += 1;
    try {
      return await recordScope.run({}, run);
    } finally {
      this.running -= 1;
      this.flushIfReady();
    }
  }

  send(record: object, queue: QueueName, bodies: readonly string[]): Promise<string[]> {
    return new Promise<string[]>((resolve, reject) => {
      this.pending.push({ record, queue, bodies, resolve, reject });
      this.timer ??= setTimeout(() => this.flush(), this.options.waitMs ?? POOL_WAIT_MS);
      // Checked once the code running now has run: a batch's records start in one go, and a
      // record that sends before the next one started must not find itself the only one running.
      queueMicrotask(() => this.flushIfReady());
    });
  }

  private flushIfReady(): void {
    if (this.pending.length === 0) return;
    const waiting = new Set(this.pending.map((p) => p.record)).size;
    const entries = this.pending.reduce((n, p) => n + p.bodies.length, 0);
    if (waiting >= this.running || entries >= BATCH_MAX_ENTRIES) this.flush();
  }

  private flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const sends = this.pending;
    this.pending = [];
    for (const queue of new Set(sends.map((s) => s.queue))) {
      const together = sends.filter((s) => s.queue === queue);
      sendTogether(this.options.send ?? sendEntries, queue, together).catch((error: unknown) => {
        for (const send of together) send.reject(error);
      });
    }
  }
}

/**
 * Sends the callers' bodies in calls of ten, side by side, and answers each caller with its
 * message ids in the order of its bodies, or with the first error of one of its entries.
 */
async function sendTogether(
  sendCall: SendEntries,
  queue: QueueName,
  sends: readonly PendingSend[],
): Promise<void> {
  const entries: (QueueEntry & { caller: number; at: number })[] = sends.flatMap((send, caller) =>
    send.bodies.map((body, at) => ({ Id: `${caller}-${at}`, MessageBody: body, caller, at })),
  );
  const calls: (typeof entries)[] = [];
  for (let i = 0; i < entries.length; i += BATCH_MAX_ENTRIES)
    calls.push(entries.slice(i, i + BATCH_MAX_ENTRIES));
  const answers = await Promise.allSettled(
    calls.map((call) =>
      sendCall(
        queue,
        call.map(({ Id, MessageBody }) => ({ Id, MessageBody })),
      ),
    ),
  );
  const ids = sends.map((send) => new Array<string>(send.bodies.length));
  const errors = new Map<number, unknown>();
  answers.forEach((answer, i) => {
    for (const entry of calls[i] ?? []) {
      const outcome = answer.status === 'fulfilled' ? answer.value.get(entry.Id) : answer.reason;
      if (typeof outcome === 'string') (ids[entry.caller] as string[])[entry.at] = outcome;
      else if (!errors.has(entry.caller))
        errors.set(entry.caller, outcome ?? new Error(`SQS did not answer for a message to ${queue}`));
    }
  });
  sends.forEach((send, caller) => {
    if (errors.has(caller)) send.reject(errors.get(caller));
    else send.resolve(ids[caller] as string[]);
  });
}

const poolScope = new AsyncLocalStorage<SendPool>();
/** The record a pooled send comes from (an object per `pooledRecord` call). */
const recordScope = new AsyncLocalStorage<object>();

/** Runs `run` (a queue consumer's batch) with a pool its records' `sendPooled` calls share. */
export function withSendPool<T>(run: () => Promise<T>, options: PoolOptions = {}): Promise<T> {
  return poolScope.run(new SendPool(options), run);
}

/** Runs one record of the batch: a pooled send waits for the records running, not for ended ones. */
export function pooledRecord<T>(run: () => Promise<T>): Promise<T> {
  const pool = poolScope.getStore();
  return pool ? pool.record(run) : run();
}

/**
 * Sends every body to the standard queue `queue` together with the other records' pooled sends
 * (`sendAll` outside a pool) and answers the message ids in the order of `bodies`. Throws as
 * `sendAll` does, for this caller's entries only.
 */
export function sendPooled(queue: QueueName, bodies: readonly string[]): Promise<string[]> {
  const pool = poolScope.getStore();
  const record = recordScope.getStore();
  if (!pool || !record || bodies.length === 0) return sendAll(queue, bodies);
  return pool.send(record, queue, bodies);
}
