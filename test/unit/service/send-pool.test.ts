/**
 * Sends pooled per batch (shared/store/send-pool.ts, ADR 0023): the records of a batch share
 * SendMessageBatch calls of up to ten entries, each caller answered for its own entries. The
 * pool's sender is a recorder handed in through its options; the pool's own wait is set far past
 * any test's run where a test proves that the records' state (not the clock) released a send.
 */
import { describe, expect, it } from 'vitest';
import type { QueueEntry } from '../../../shared/store/queues';
import { pooledRecord, type SendEntries, sendPooled, withSendPool } from '../../../shared/store/send-pool';

/** Longer than any test here runs: a send released before it was released by the records. */
const NEVER_MS = 600_000;

type Call = { queue: string; entries: QueueEntry[] };

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
    const answers = withSendPool(
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
    const answers = withSendPool(
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
    await withSendPool(
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
    await withSendPool(
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
    const [a, b, c] = await withSendPool(
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
    const answers = await withSendPool(
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
    const twelve = await withSendPool(
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
