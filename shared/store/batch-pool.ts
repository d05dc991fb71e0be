/**
 * Calls pooled per batch (issue 42, ADR 0023 "Batched sends" and "Batched reads"): SQS bills a
 * `SendMessageBatch` of ten messages as one request and DynamoDB serves a `BatchGetItem` of many
 * keys in one round trip, but each record of a queue consumer's batch sends its own few messages
 * (fan-out: one notification's deliveries) and reads its own item (delivery: its webhook). Inside
 * a pool (`withBatchPool` around a batch, `pooledRecord` around each of its records) the records'
 * pooled calls (`sendPooled` in ./pooled-sends.ts, `getPooled` in ./pooled-reads.ts) wait for one
 * another and go out together, each caller answered for its own part.
 *
 * A pooled call waits until every record still running waits on the pool too (a record that ends
 * stops counting), its kind has a full call pending (ten entries, a hundred keys), or POOL_WAIT_MS
 * have passed since the first pending call, whichever comes first. A batch of one record (a quiet
 * queue) calls at once; a record that is slow to reach its call holds the others' at most
 * POOL_WAIT_MS. Outside a pool, or from outside a record, a pooled call is made on its own.
 *
 * This module loads no SDK client: each kind's module brings its own.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { sendEntries } from './queues';

/** The longest a pooled call waits for its batch's other records. */
const POOL_WAIT_MS = 20;

/** One caller's pending call: its input, and how to answer it. */
export interface Pending<I, O> {
  input: I;
  resolve: (output: O) => void;
  reject: (error: unknown) => void;
}

/** What a pool lets tests replace: the sender, the reader and the wait. */
export interface PoolOptions {
  send?: typeof sendEntries;
  /** `batchGetAll`: one table's items under `keys`. */
  get?: (table: string, keys: readonly Record<string, unknown>[]) => Promise<Record<string, unknown>[]>;
  waitMs?: number;
}

/** A kind of pooled call: the calls of one key go out together (a queue's sends, a table's reads). */
export interface PooledKind<I, O> {
  key: string;
  /** The size of one input (entries, keys) and the pending size that makes a full call. */
  size(input: I): number;
  full: number;
  /** Makes the calls for `pending` and answers each caller; a throw fails every caller not answered. */
  call(pending: readonly Pending<I, O>[], options: PoolOptions): Promise<void>;
}

/** One kind per name (a queue, a table), made on first use: a kind's key groups its calls. */
export function kindsByName<I, O>(
  make: (name: string) => PooledKind<I, O>,
): (name: string) => PooledKind<I, O> {
  const kinds = new Map<string, PooledKind<I, O>>();
  return (name) => {
    const known = kinds.get(name);
    if (known) return known;
    const kind = make(name);
    kinds.set(name, kind);
    return kind;
  };
}

type AnyPending = Pending<unknown, unknown> & { record: object; kind: PooledKind<unknown, unknown> };

class BatchPool {
  constructor(readonly options: PoolOptions) {}

  /** Records running now. */
  private running = 0;
  private pending: AnyPending[] = [];
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

  call<I, O>(record: object, kind: PooledKind<I, O>, input: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.pending.push({ record, kind, input, resolve, reject } as unknown as AnyPending);
      this.timer ??= setTimeout(() => this.flush(), this.options.waitMs ?? POOL_WAIT_MS);
      // Checked once the code running now has run: a batch's records start in one go, and a
      // record that calls before the next one started must not find itself the only one running.
      queueMicrotask(() => this.flushIfReady());
    });
  }

  private flushIfReady(): void {
    if (this.pending.length === 0) return;
    const waiting = new Set(this.pending.map((p) => p.record)).size;
    const sizes = new Map<string, number>();
    let full = false;
    for (const p of this.pending) {
      const size = (sizes.get(p.kind.key) ?? 0) + p.kind.size(p.input);
      sizes.set(p.kind.key, size);
      if (size >= p.kind.full) full = true;
    }
    if (waiting >= this.running || full) this.flush();
  }

  private flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const pending = this.pending;
    this.pending = [];
    for (const key of new Set(pending.map((p) => p.kind.key))) {
      const together = pending.filter((p) => p.kind.key === key);
      const kind = together[0]?.kind as PooledKind<unknown, unknown>;
      kind.call(together, this.options).catch((error: unknown) => {
        for (const p of together) p.reject(error);
      });
    }
  }
}

const poolScope = new AsyncLocalStorage<BatchPool>();
/** The record a pooled call comes from (an object per `pooledRecord` call). */
const recordScope = new AsyncLocalStorage<object>();

/** Runs `run` (a queue consumer's batch) with a pool its records' pooled calls share. */
export function withBatchPool<T>(run: () => Promise<T>, options: PoolOptions = {}): Promise<T> {
  return poolScope.run(new BatchPool(options), run);
}

/** Runs one record of the batch: a pooled call waits for the records running, not for ended ones. */
export function pooledRecord<T>(run: () => Promise<T>): Promise<T> {
  const pool = poolScope.getStore();
  return pool ? pool.record(run) : run();
}

/** `input`'s call of `kind` with the batch's others, or undefined outside a pool's record. */
export function pooledCall<I, O>(kind: PooledKind<I, O>, input: I): Promise<O> | undefined {
  const pool = poolScope.getStore();
  const record = recordScope.getStore();
  return pool && record ? pool.call(record, kind, input) : undefined;
}
