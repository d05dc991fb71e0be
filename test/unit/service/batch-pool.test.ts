/**
 * Calls pooled per batch (shared/store/batch-pool.ts, ADR 0023): the records of a batch share
 * SendMessageBatch calls of up to ten entries, each caller answered for its own entries, and one
 * BatchGetItem per table. The pool's sender and reader are recorders handed in through its
 * options; the pool's own wait is set far past any test's run where a test proves that the
 * records' state (not the clock) released a call.
 */
import { describe, expect, it } from 'vitest';
import { type PoolOptions, pooledRecord, withBatchPool } from '../../../shared/store/batch-pool';
import { getPooled } from '../../../shared/store/pooled-reads';
import { sendPooled } from '../../../shared/store/pooled-sends';
import { type QueueEntry, sendCalls } from '../../../shared/store/queues';

/** Longer than any test here runs: a send released before it was released by the records. */
const NEVER_MS = 600_000;

type Call = { queue: string; entries: QueueEntry[] };
type SendEntries = NonNullable<PoolOptions['send']>;

/** A sender that records each call and answers each entry with `id:<body>`, or what `answer` says. */
function recorder(answer: (entry: QueueEntry) => string | Error = (entry) => `id:${entry.MessageBody}`) {
  const calls: Call[] = [];
  const send: SendEntries = async (queue, entries) => {
    calls.push({ queue, entries: [...entries] });
    return new Map(entries.map((entry) => [entry.Id, answer(entry)]));
  };
  return { calls, send };
}

/** A promise the test resolves when it chooses. */
function gate() {
  let open = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { open, opened };
}

describe('sendPooled', () => {
  it("sends the batch's records' messages together once every running record waits, each caller getting its own ids", async () => {
    const { calls, send } = recorder();
    const gates = [gate(), gate(), gate()];
    const answers = withBatchPool(
      () =>
        Promise.all(
          gates.map((g, r) =>
            pooledRecord(async () => {
              await g.opened;
              return sendPooled(
                'deliveries',
                Array.from({ length: r + 1 }, (_, i) => `r${r}m${i}`),
              );
            }),
          ),
        ),
      { send, waitMs: NEVER_MS },
    );
    for (const g of [gates[2], gates[0], gates[1]]) {
      g?.open();
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(await answers).toEqual([['id:r0m0'], ['id:r1m0', 'id:r1m1'], ['id:r2m0', 'id:r2m1', 'id:r2m2']]);
    expect(calls).toHaveLength(1);
    expect(calls[0]?.queue).toBe('deliveries');
    expect(calls[0]?.entries.map((e) => e.MessageBody).sort()).toEqual(
      ['r0m0', 'r1m0', 'r1m1', 'r2m0', 'r2m1', 'r2m2'].sort(),
    );
  });

  it('does not wait for a record that ended without sending', async () => {
    const { calls, send } = recorder();
    const other = gate();
    const answers = withBatchPool(
      () =>
        Promise.all([
          pooledRecord(() => sendPooled('deliveries', ['a'])),
          pooledRecord(async () => {
            await other.opened;
            return 'ended';
          }),
        ]),
      { send, waitMs: NEVER_MS },
    );
    await new Promise((resolve) => setImmediate(resolve));
    expect(calls).toHaveLength(0);
    other.open();
    expect(await answers).toEqual([['id:a'], 'ended']);
    expect(calls).toHaveLength(1);
  });

  it('sends ten pending entries at once, while another record still runs', async () => {
    const { calls, send } = recorder();
    const other = gate();
    const ten = Array.from({ length: 10 }, (_, i) => `m${i}`);
    await withBatchPool(
      () =>
        Promise.all([
          pooledRecord(async () => {
            expect(await sendPooled('deliveries', ten)).toEqual(ten.map((m) => `id:${m}`));
            // Sent while the other record was still running.
            expect(calls).toHaveLength(1);
            other.open();
          }),
          pooledRecord(() => other.opened),
        ]),
      { send, waitMs: NEVER_MS },
    );
    expect(calls.map((c) => c.entries.length)).toEqual([10]);
  });

  it('stops waiting for a slow record after the wait', async () => {
    const { calls, send } = recorder();
    const slow = gate();
    await withBatchPool(
      () =>
        Promise.all([
          pooledRecord(async () => {
            expect(await sendPooled('deliveries', ['first'])).toEqual(['id:first']);
            slow.open();
          }),
          pooledRecord(async () => {
            await slow.opened;
            expect(await sendPooled('deliveries', ['second'])).toEqual(['id:second']);
          }),
        ]),
      { send, waitMs: 1 },
    );
    expect(calls.map((c) => c.entries.map((e) => e.MessageBody))).toEqual([['first'], ['second']]);
  });

  it('splits more than ten entries into calls of ten, each queue apart', async () => {
    const { calls, send } = recorder();
    const bodies = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${i}`);
    const [a, b, c] = await withBatchPool(
      () =>
        Promise.all([
          pooledRecord(() => sendPooled('deliveries', bodies('a', 7))),
          pooledRecord(() => sendPooled('deliveries', bodies('b', 7))),
          pooledRecord(() => sendPooled('recoveries', bodies('c', 2))),
        ]),
      { send, waitMs: NEVER_MS },
    );
    expect(a).toEqual(bodies('a', 7).map((m) => `id:${m}`));
    expect(b).toEqual(bodies('b', 7).map((m) => `id:${m}`));
    expect(c).toEqual(['id:c0', 'id:c1']);
    const deliveries = calls.filter((call) => call.queue === 'deliveries');
    expect(deliveries.map((call) => call.entries.length).sort()).toEqual([10, 4].sort());
    expect(calls.filter((call) => call.queue === 'recoveries').map((call) => call.entries.length)).toEqual([
      2,
    ]);
  });

  it('fails only the caller whose entry SQS refused, and every caller of a call that failed whole', async () => {
    const refused = new Error('SQS refused a message for deliveries (InvalidMessageContents)');
    const { send } = recorder((entry) => (entry.MessageBody === 'bad' ? refused : `id:${entry.MessageBody}`));
    const answers = await withBatchPool(
      () =>
        Promise.allSettled([
          pooledRecord(() => sendPooled('deliveries', ['ok1', 'bad'])),
          pooledRecord(() => sendPooled('deliveries', ['ok2'])),
        ]),
      { send, waitMs: NEVER_MS },
    );
    expect(answers).toEqual([
      { status: 'rejected', reason: refused },
      { status: 'fulfilled', value: ['id:ok2'] },
    ]);

    const down = new Error('connect ECONNREFUSED');
    let call = 0;
    const failing: SendEntries = async (_queue, entries) => {
      call += 1;
      if (call === 1) throw down;
      return new Map(entries.map((entry) => [entry.Id, `id:${entry.MessageBody}`]));
    };
    const twelve = await withBatchPool(
      () =>
        Promise.allSettled([
          pooledRecord(() =>
            sendPooled(
              'deliveries',
              Array.from({ length: 6 }, (_, i) => `x${i}`),
            ),
          ),
          pooledRecord(() =>
            sendPooled(
              'deliveries',
              Array.from({ length: 6 }, (_, i) => `y${i}`),
            ),
          ),
        ]),
      { send: failing, waitMs: NEVER_MS },
    );
    // The first call held x0..x5 and y0..y3: both callers had an entry in it.
    expect(twelve).toEqual([
      { status: 'rejected', reason: down },
      { status: 'rejected', reason: down },
    ]);
  });

  it('runs a record outside a pool as it is', async () => {
    expect(await pooledRecord(async () => 'ran')).toBe('ran');
  });
});

describe('getPooled', () => {
  it("reads the batch's records' keys of a table in one BatchGetItem, each key once, each caller answered", async () => {
    const reads: { table: string; keys: unknown[] }[] = [];
    const get = async (table: string, keys: readonly Record<string, unknown>[]) => {
      reads.push({ table, keys: [...keys] });
      return keys.filter((key) => key.id !== 404).map((key) => ({ ...key, name: `webhook ${key.id}` }));
    };
    const answers = await withBatchPool(
      () =>
        Promise.all(
          [1, 2, 1, 404].map((id) => pooledRecord(() => getPooled<{ name: string }>('webhooks', { id }))),
        ),
      { get, waitMs: NEVER_MS },
    );
    expect(answers.map((item) => item?.name)).toEqual(['webhook 1', 'webhook 2', 'webhook 1', undefined]);
    expect(reads).toEqual([{ table: 'webhooks', keys: [{ id: 1 }, { id: 2 }, { id: 404 }] }]);
  });

  it("fails every caller of a read that failed, and goes out with a batch's sends", async () => {
    const { calls, send } = recorder();
    const throttled = new Error('DynamoDB left 2 key(s) of webhooks unprocessed');
    const answers = await withBatchPool(
      () =>
        Promise.allSettled([
          pooledRecord(() => getPooled('webhooks', { id: 1 })),
          pooledRecord(() => getPooled('webhooks', { id: 2 })),
          pooledRecord(() => sendPooled('deliveries', ['m'])),
        ]),
      {
        send,
        get: async () => {
          throw throttled;
        },
        waitMs: NEVER_MS,
      },
    );
    expect(answers).toEqual([
      { status: 'rejected', reason: throttled },
      { status: 'rejected', reason: throttled },
      { status: 'fulfilled', value: ['id:m'] },
    ]);
    expect(calls).toHaveLength(1);
  });
});

describe('sendCalls', () => {
  const entry = (bytes: number, id = `${bytes}`) => ({ Id: id, MessageBody: 'é'.repeat(bytes / 2) });

  it('puts ten entries a call at most, in their order', () => {
    const entries = Array.from({ length: 23 }, (_, i) => ({ Id: `${i}`, MessageBody: `m${i}` }));
    const calls = sendCalls(entries);
    expect(calls.map((call) => call.length)).toEqual([10, 10, 3]);
    expect(calls.flat()).toEqual(entries);
  });

  it("keeps a call's bodies within 1 MiB (UTF-8 bytes), and sends a larger entry alone", () => {
    const mib = 1024 * 1024;
    const threeTenths = Array.from({ length: 7 }, (_, i) => entry(314_572, `a${i}`));
    expect(sendCalls(threeTenths).map((call) => call.map((e) => e.Id))).toEqual([
      ['a0', 'a1', 'a2'],
      ['a3', 'a4', 'a5'],
      ['a6'],
    ]);
    expect(sendCalls([entry(mib, 'whole')]).map((call) => call.length)).toEqual([1]);
    expect(
      sendCalls([entry(10, 'small'), entry(mib + 2, 'large'), entry(10, 'after')]).map((call) =>
        call.map((e) => e.Id),
      ),
    ).toEqual([['small'], ['large'], ['after']]);
  });
});
