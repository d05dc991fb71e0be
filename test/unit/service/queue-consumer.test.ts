/**
 * The queue-consumer edge (ADR 0014) with constructed SQS events: what each answer of a handler
 * does to the queue, the attempt context, malformed messages, and FIFO batches — a group's
 * messages in order, stopping at its first failure (the rest held in order, with the head's
 * delay), other groups side by side. The SQS adapter is replaced by a recorder.
 */
import { randomUUID } from 'node:crypto';
import type { SQSRecord } from 'aws-lambda';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import * as z from 'zod/mini';
import {
  deadLetter,
  done,
  type MessageContext,
  type Next,
  retryIn,
  sendAgain,
} from '../../../shared/edge/queue/contract';

const calls: { op: string; queue: string; args: unknown[] }[] = [];
vi.mock('../../../shared/store/queues', async (importActual) => {
  const actual = await importActual<typeof import('../../../shared/store/queues')>();
  return {
    // The pool's split into calls (and its size of a call) is the real one; its calls are recorded.
    BATCH_MAX_ENTRIES: actual.BATCH_MAX_ENTRIES,
    sendCalls: actual.sendCalls,
    sendEntries: async (queue: string, entries: { Id: string; MessageBody: string }[]) => {
      calls.push({ op: 'sendBatch', queue, args: [entries.map((e) => e.MessageBody)] });
      return new Map(entries.map((e) => [e.Id, `id-${e.MessageBody}`]));
    },
    changeVisibility: async (queue: string, handles: string[], seconds: number) => {
      calls.push({ op: 'visibility', queue, args: [handles, seconds] });
    },
    sendDelayed: async (queue: string, body: string, delaySeconds: number, fifo?: unknown) => {
      calls.push({ op: 'send', queue, args: [JSON.parse(body), delaySeconds, fifo] });
    },
    sendToDeadLetter: async (queue: string, body: string, reason: string, fifo?: unknown) => {
      calls.push({
        op: 'deadLetter',
        queue,
        args: fifo === undefined ? [body, reason] : [body, reason, fifo],
      });
    },
  };
});

const { queueConsumer } = await import('../../../shared/edge/queue/consumer');
const { sendPooled } = await import('../../../shared/store/pooled-sends');

const lambda = { getRemainingTimeInMillis: () => 30_000 };
const Message = z.strictObject({
  name: z.string(),
  answer: z.optional(z.string()),
  base: z.optional(z.number()),
});
type Message = z.infer<typeof Message>;

function record(
  body: unknown,
  attributes: Partial<SQSRecord['attributes']> = {},
  messageId = `m-${randomUUID()}`,
): SQSRecord {
  return {
    messageId,
    receiptHandle: `rh-${messageId}`,
    body: typeof body === 'string' ? body : JSON.stringify(body),
    attributes: {
      ApproximateReceiveCount: '1',
      SentTimestamp: '1700000000000',
      SenderId: 'test',
      ApproximateFirstReceiveTimestamp: '1700000000000',
      ...attributes,
    },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:deliveries',
    awsRegion: 'us-east-1',
  };
}

/** A FIFO record of `group`, named `name` (its message id too). */
const fifo = (group: string, name: string, answer?: string) =>
  record({ name, ...(answer ? { answer } : {}) }, { MessageGroupId: group, SequenceNumber: '1' }, name);

beforeEach(() => {
  calls.length = 0;
});

describe('the queue-consumer edge', () => {
  it('does what each answer says: done, retry by visibility, send again, dead-letter, and a throw', async () => {
    const answers: Record<string, Next> = {
      done: done(),
      retry: retryIn(30, 'busy'),
      again: sendAgain({ name: 'later' }, 7, 'throttled'),
      dead: deadLetter('schedule exhausted'),
    };
    const handler = queueConsumer({
      queue: 'deliveries',
      message: { schema: Message, what: 'test message' },
      handle: async (message: Message) => {
        if (message.name === 'throws') throw new Error('boom');
        return answers[message.name] ?? done();
      },
    });
    const records = ['done', 'retry', 'again', 'dead', 'throws'].map((name) => record({ name }, {}, name));
    const response = await handler({ Records: records }, lambda as never);
    // The planned retry and the throw come back; the others are finished.
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: 'retry' }, { itemIdentifier: 'throws' }]);
    expect(calls).toEqual(
      expect.arrayContaining([
        { op: 'visibility', queue: 'deliveries', args: [['rh-retry'], 30] },
        { op: 'send', queue: 'deliveries', args: [{ name: 'later' }, 7, undefined] },
        { op: 'deadLetter', queue: 'deliveries', args: [records[3]?.body, 'schedule exhausted'] },
      ]),
    );
    expect(calls).toHaveLength(3);
  });

  it("pools its records' sends: a batch's messages go out in one SendMessageBatch, each record answered", async () => {
    const answered: string[][] = [];
    const handler = queueConsumer({
      queue: 'notifications',
      message: { schema: Message, what: 'test message' },
      handle: async (message: Message) => {
        answered.push(await sendPooled('deliveries', [`${message.name}-1`, `${message.name}-2`]));
        return done();
      },
    });
    const records = ['a', 'b', 'c'].map((name) => record({ name }, {}, name));
    const response = await handler({ Records: records }, lambda as never);
    expect(response.batchItemFailures).toEqual([]);
    expect(calls).toEqual([
      { op: 'sendBatch', queue: 'deliveries', args: [['a-1', 'a-2', 'b-1', 'b-2', 'c-1', 'c-2']] },
    ]);
    expect(answered.sort()).toEqual([
      ['id-a-1', 'id-a-2'],
      ['id-b-1', 'id-b-2'],
      ['id-c-1', 'id-c-2'],
    ]);
  });

  it('dead-letters a body that is not JSON or not the message, with the reason, and finishes it', async () => {
    const handle = vi.fn(async () => done());
    const handler = queueConsumer({
      queue: 'notifications',
      message: { schema: Message, what: 'thing' },
      handle,
    });
    const response = await handler(
      { Records: [record('{not json', {}, 'a'), record({ name: 7 }, {}, 'b')] },
      lambda as never,
    );
    expect(response.batchItemFailures).toEqual([]);
    expect(handle).not.toHaveBeenCalled();
    expect(calls.map((c) => [c.op, c.args[1]])).toEqual([
      ['deadLetter', 'malformed thing: body is not JSON'],
      ['deadLetter', expect.stringMatching(/^malformed thing: .*name/)],
    ]);
  });

  it('gives the handler its context: attempt = attempts before + receive count, redelivered, deadline, ids', async () => {
    const seen: MessageContext[] = [];
    const handler = queueConsumer({
      queue: 'deliveries',
      message: { schema: Message, what: 'test message' },
      attemptsBefore: (message: Message) => message.base ?? 0,
      handle: async (_message: Message, context: MessageContext) => {
        seen.push(context);
        return done();
      },
    });
    const before = Date.now();
    await handler(
      {
        Records: [
          record({ name: 'first' }, {}, 'first'),
          record({ name: 'third', base: 2 }, { ApproximateReceiveCount: '1' }, 'third'),
          record({ name: 'again' }, { ApproximateReceiveCount: '3', AWSTraceHeader: 'Root=1-abc' }, 'again'),
        ],
      },
      lambda as never,
    );
    const byId = new Map(seen.map((c) => [c.messageId, c]));
    expect(byId.get('first')).toMatchObject({ attempt: 1, redelivered: false, sentAt: 1700000000000 });
    expect(byId.get('third')).toMatchObject({ attempt: 3, redelivered: false });
    expect(byId.get('again')).toMatchObject({ attempt: 3, redelivered: true, traceHeader: 'Root=1-abc' });
    expect(byId.get('first')?.groupId).toBeUndefined();
    for (const context of seen) {
      expect(context.deadline).toBeGreaterThanOrEqual(before + 30_000);
      expect(context.deadline).toBeLessThanOrEqual(Date.now() + 30_000);
    }
  });

  it('runs a standard batch side by side: a slow record holds up no other', async () => {
    let release: () => void = () => {};
    const slow = new Promise<void>((resolve) => {
      release = resolve;
    });
    const finished: string[] = [];
    const handler = queueConsumer({
      queue: 'deliveries',
      message: { schema: Message, what: 'test message' },
      handle: async (message: Message) => {
        if (message.name === 'slow') await slow;
        finished.push(message.name);
        // The last fast record lets the slow one go: run one after another, this batch never ends.
        if (finished.length === 2) release();
        return done();
      },
    });
    const response = await handler(
      { Records: ['slow', 'fast-1', 'fast-2'].map((name) => record({ name })) },
      lambda as never,
    );
    expect(finished).toEqual(['fast-1', 'fast-2', 'slow']);
    expect(response.batchItemFailures).toEqual([]);
  });
});

describe("a batch's telemetry", () => {
  /** What the handler writes to stdout while `run` runs, parsed. */
  async function stdoutOf(run: () => Promise<unknown>): Promise<Record<string, unknown>[]> {
    const lines: string[] = [];
    const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      lines.push(String(chunk));
      return true;
    });
    try {
      await run().catch(() => undefined);
    } finally {
      spy.mockRestore();
    }
    return lines.flatMap((l) => l.split('\n').filter(Boolean)).map((l) => JSON.parse(l));
  }

  /** A consumer whose records note their name for the batch line and record its length as a metric. */
  async function notingConsumer() {
    const { noteInBatch } = await import('../../../shared/observability/batch-notes');
    const { recordFanOut } = await import('../../../shared/observability/metrics');
    const handler = queueConsumer({
      queue: 'notifications',
      message: { schema: Message, what: 'test message' },
      attemptsUnused: true,
      handle: async (message: Message) => {
        if (message.name === 'throws') throw new Error('boom');
        noteInBatch('delivered', message.name);
        recordFanOut(message.name.length);
        return done();
      },
    });
    return { handler, noteInBatch };
  }

  it("names what its records noted in the batch's line, and writes their metrics once, as the batch ends", async () => {
    const { handler, noteInBatch } = await notingConsumer();
    const lines = await stdoutOf(() =>
      handler({ Records: ['a', 'bb', 'throws'].map((name) => record({ name }, {}, name)) }, lambda as never),
    );
    const emf = lines.filter((l) => '_aws' in l);
    // One document for the batch: a value (a sample) per record that recorded one.
    expect(emf).toHaveLength(1);
    expect(emf[0]?.FanOutWidth).toEqual([1, 2]);
    const batch = lines.find((l) => l.message === 'notifications batch');
    expect(batch).toMatchObject({ messages: 3, failures: 1, delivered: ['a', 'bb'] });
    // Outside a batch (a record run on its own) nothing is noted and the metric is written at once.
    expect(noteInBatch('delivered', 'x')).toBe(false);
  });

  it('writes the metrics and the line also when the batch itself throws (every message comes back)', async () => {
    const { handler } = await notingConsumer();
    // The runtime fails to say the time left once the first record ran: the batch throws.
    let asked = 0;
    const failing = {
      getRemainingTimeInMillis: () => {
        if (++asked > 1) throw new Error('no time left to tell');
        return 30_000;
      },
    };
    let thrown: unknown;
    const lines = await stdoutOf(() =>
      handler({ Records: [fifo('g', 'a'), fifo('g', 'b')] }, failing as never).catch((error: unknown) => {
        thrown = error;
      }),
    );
    expect(thrown).toBeInstanceOf(Error);
    expect(lines.filter((l) => '_aws' in l).map((l) => l.FanOutWidth)).toEqual([1]);
    expect(lines.find((l) => l.message === 'notifications batch')).toMatchObject({
      messages: 2,
      failures: 2,
      delivered: ['a'],
    });
  });
});

describe('FIFO batches', () => {
  it('run each group in order and stop it at its first failure, the rest held in order; other groups go on side by side', async () => {
    const events: string[] = [];
    let releaseB: () => void = () => {};
    const bHeld = new Promise<void>((resolve) => {
      releaseB = resolve;
    });
    const handler = queueConsumer({
      queue: 'deliveries',
      message: { schema: Message, what: 'test message' },
      attemptOf: async () => 1,
      handle: async (message: Message, context: MessageContext) => {
        events.push(`start ${message.name}`);
        // Group b's first message waits until group a has finished its run: groups are side by side.
        if (message.name === 'b1') await bHeld;
        events.push(`end ${message.name}`);
        if (message.name === 'a3') releaseB();
        expect(context.groupId).toBe(message.name.slice(0, 1));
        if (message.answer === 'retry') return retryIn(20, 'the head of the group is not ready');
        if (message.answer === 'throw') throw new Error('failed mid-group');
        return done();
      },
    });
    const records = [
      fifo('a', 'a1'),
      fifo('b', 'b1'),
      fifo('a', 'a2'),
      fifo('c', 'c1'),
      fifo('a', 'a3', 'retry'),
      fifo('b', 'b2'),
      fifo('a', 'a4'),
      fifo('d', 'd1', 'throw'),
      fifo('a', 'a5'),
      fifo('d', 'd2'),
      fifo('c', 'c2'),
    ];
    const response = await handler({ Records: records }, lambda as never);

    // The failures, in the batch's order: a3 (its retry), a4 and a5 behind it; d1 (thrown), d2 behind it.
    expect(response.batchItemFailures.map((f) => f.itemIdentifier)).toEqual(['a3', 'a4', 'd1', 'a5', 'd2']);
    // Within a group one after another; the held ones never ran.
    const order = (name: string) => events.indexOf(`start ${name}`);
    expect(events.indexOf('end a1')).toBeLessThan(order('a2'));
    expect(events.indexOf('end a2')).toBeLessThan(order('a3'));
    expect(events.indexOf('end b1')).toBeLessThan(order('b2'));
    expect(events.indexOf('end c1')).toBeLessThan(order('c2'));
    for (const held of ['a4', 'a5', 'd2']) expect(events).not.toContain(`start ${held}`);
    // Side by side: b1 started before group a ran its third message, and ended after it.
    expect(order('b1')).toBeLessThan(order('a3'));
    expect(events.indexOf('end b1')).toBeGreaterThan(events.indexOf('end a3'));
    // The head's retry delay is given to the messages held behind it; a thrown head's group keeps
    // its visibility timeout.
    expect(calls).toEqual([
      { op: 'visibility', queue: 'deliveries', args: [['rh-a3'], 20] },
      { op: 'visibility', queue: 'deliveries', args: [['rh-a4', 'rh-a5'], 20] },
    ]);
  });

  it('takes the attempt from the consumer’s own count, and refuses a FIFO message to a consumer without one', async () => {
    const counted = queueConsumer({
      queue: 'deliveries',
      message: { schema: Message, what: 'test message' },
      attemptOf: async (_message: Message, ids) => (ids.groupId === 'g' ? 4 : 0),
      handle: async (_message: Message, context: MessageContext) => done(context.attempt),
    });
    // Received 9 times (returned behind failed heads), yet its fourth attempt.
    const returned = fifo('g', 'g1');
    returned.attributes.ApproximateReceiveCount = '9';
    expect(await counted.processRecord(returned, lambda)).toMatchObject({ kind: 'done', result: 4 });

    const uncounted = queueConsumer({
      queue: 'deliveries',
      message: { schema: Message, what: 'test message' },
      handle: async () => done(),
    });
    const refused = await uncounted.processRecord(fifo('g', 'g2'), lambda);
    expect(refused.kind).toBe('failed');
    expect(refused.kind === 'failed' && String(refused.error)).toMatch(/FIFO message and counts no attempts/);
  });

  it('sends a message again into its group without a delay, and refuses a delay (SQS does too)', async () => {
    const handler = queueConsumer({
      queue: 'deliveries',
      message: { schema: Message, what: 'test message' },
      attemptOf: async () => 1,
      handle: async (message: Message) =>
        sendAgain({ name: 'next' }, message.answer === 'delay' ? 5 : 0, 'continues'),
    });
    expect((await handler.processRecord(fifo('g', 'now'), lambda)).kind).toBe('done');
    expect(calls).toEqual([
      {
        op: 'send',
        queue: 'deliveries',
        args: [{ name: 'next' }, 0, { groupId: 'g', deduplicationId: 'now-again' }],
      },
    ]);
    const delayed = await handler.processRecord(fifo('g', 'later', 'delay'), lambda);
    expect(delayed.kind === 'failed' && String(delayed.error)).toMatch(/per-message delay on a FIFO queue/);
    expect(calls).toHaveLength(1);
  });

  it('gives a FIFO consumer that uses no attempt the receive count, and dead-letters into the group', async () => {
    const handler = queueConsumer({
      queue: 'notificationsOrdered',
      message: { schema: Message, what: 'test message' },
      attemptsUnused: true,
      handle: async (message: Message, context: MessageContext) =>
        message.answer === 'dead' ? deadLetter('no good') : done(context.attempt),
    });
    const returned = fifo('key-1', 'k1');
    returned.attributes.ApproximateReceiveCount = '3';
    expect(await handler.processRecord(returned, lambda)).toMatchObject({ kind: 'done', result: 3 });
    const dead = fifo('key-1', 'k2', 'dead');
    expect((await handler.processRecord(dead, lambda)).kind).toBe('done');
    // A FIFO DLQ takes the message only with a group and a deduplication id: its own group, its id.
    expect(calls).toEqual([
      {
        op: 'deadLetter',
        queue: 'notificationsOrdered',
        args: [dead.body, 'no good', { groupId: 'key-1', deduplicationId: 'k2' }],
      },
    ]);
  });

  it("gives a group's later records back at once, in order, when too little of the invocation is left to run them", async () => {
    let left = 60_000;
    const ran: string[] = [];
    const handler = queueConsumer({
      queue: 'deliveries',
      message: { schema: Message, what: 'test message' },
      attemptOf: async () => 1,
      handle: async (message: Message) => {
        ran.push(message.name);
        // Each run takes 20 s of the invocation's 60 s (the deliveries consumer's timeout).
        left -= 20_000;
        return done();
      },
    });
    const records = [fifo('a', 'a1'), fifo('b', 'b1'), fifo('a', 'a2'), fifo('a', 'a3'), fifo('a', 'a4')];
    const response = await handler({ Records: records }, { getRemainingTimeInMillis: () => left } as never);
    // a1 and b1 start at once (side by side); a2 with 20 s left (more than a quarter of 60 s); a3
    // would start with 0 s left: it and a4 are given back, visible again at once, in order.
    expect(ran).toEqual(['a1', 'b1', 'a2']);
    expect(response.batchItemFailures.map((f) => f.itemIdentifier)).toEqual(['a3', 'a4']);
    expect(calls).toEqual([{ op: 'visibility', queue: 'deliveries', args: [['rh-a3', 'rh-a4'], 0] }]);
  });
});
