/**
 * Over 400 lines: the service runs, the two floors and the variants share the receiver, the
 * offered rate and the alternating rounds here; only the variants' setups live apart.
 *
 * Figure 20 (issue 42, item 2): latency from a producer's `SendMessage` to the receiver's first
 * byte, at a fixed offered rate, against floors measured in the same run on the same emulator.
 *
 * - **service**: a notification published by the real publisher (one `SendMessage` each, the
 *   clock read just before it) to the bench cloud's notifications queue, fanned out and delivered
 *   by the cloud's own consumers to a loopback receiver; latency = the receiver's first byte of
 *   the POST − the send. Unkeyed to an unordered webhook, and keyed (100 keys) to an ordered one.
 * - **two-queue floor**: the same sends into a bench queue A; loops of this process that only
 *   receive A and send each body on to a queue B, and receive B and POST the body to the same
 *   receiver (as intake → fan-out → deliveries → delivery do, none of the service's code between).
 * - **one-queue floor**: A and the POST loop only.
 *
 * - **variants** (./publish-latency-setups.ts): a notification to an owner with 1,000 subscribed
 *   webhooks of which 5 match, at a fifth of the rate (the same deliveries a second; a latency per
 *   matching webhook: the p-values are over every one of the 5 first bytes of every notification,
 *   and over the last of each notification's 5), and to
 *   a webhook whose destination is an SQS queue in the local cloud's sandbox account (its "first
 *   byte": the customer's queue accepting the message).
 *
 * The loops receive as the cloud's pollers do (long polls, batches of 10, two loops per queue
 * handing batches over while fewer than five run) and delete what they handled. Runs alternate
 * service, variants and floors so drift hits all. The cloud traces the figure's notifications
 * (./lib/stage-breakdown.ts): the unordered and ordered runs are broken down by stage.
 */
import { randomBytes } from 'node:crypto';
import { copyFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  DeleteMessageBatchCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
} from '@aws-sdk/client-sqs';
import { Agent, request } from 'undici';
import { EVENT_SOURCE_POLLERS } from '../infra/local/pollers';
import { type BenchCloud, STAGE_TRACE_MARK } from './lib/cloud';
import { type StageBreakdown, stageBreakdown } from './lib/stage-breakdown';
import { percentile, round, sleep } from './lib/stats';
import { ownerWithWebhook } from './lib/webhook-owner';
import { destinationOwner, MANY_MATCHING, MANY_WEBHOOKS, manyWebhooksOwner } from './publish-latency-setups';

const NOTIFICATION = 'taskValidated' as const;
const KEYS = 100;
const HANG_GUARD_MS = 5 * 60_000;
/** Untimed notifications per path before the timed runs. */
const WARM_UP = 20;

interface LatencyFigures {
  p50Ms: number;
  p95Ms: number;
  p99Ms: number;
  samples: number;
}

export interface PublishLatencyResult {
  ratePerSecond: number;
  seconds: number;
  service: LatencyFigures;
  ordered: LatencyFigures;
  /** Every first byte of the 5 matching webhooks of 1,000, and the last of each notification's 5. */
  many: LatencyFigures & {
    lastOfFive: LatencyFigures;
    webhooks: number;
    matching: number;
    /** Notifications a second (a fifth of the others': the same deliveries a second). */
    ratePerSecond: number;
  };
  /** A webhook whose destination is an SQS queue of the sandbox account. */
  awsDestination: LatencyFigures;
  twoQueueFloor: LatencyFigures;
  oneQueueFloor: LatencyFigures;
  /** service p50 / two-queue floor p50, and p99 likewise (targets ≤ 3 and ≤ 4). */
  p50Ratio: number;
  p99Ratio: number;
  orderedP50Ratio: number;
  orderedP99Ratio: number;
  manyP50Ratio: number;
  manyP99Ratio: number;
  awsP50Ratio: number;
  awsP99Ratio: number;
  /** Where the unordered and the ordered notifications waited, by stage. */
  breakdown: { unordered?: StageBreakdown; ordered?: StageBreakdown };
}

/** A receiver that stamps the first byte of each POST (its request line) by the body's `text`, and by path and text. */
async function stampingReceiver() {
  const firstByte = new Map<string, number>();
  const byPath = new Map<string, number>();
  const server = createServer((req, res) => {
    const at = Date.now();
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const text = (JSON.parse(body) as { text?: string }).text ?? body;
      if (!firstByte.has(text)) firstByte.set(text, at);
      const key = `${req.url} ${text}`;
      if (!byPath.has(key)) byPath.set(key, at);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
  });
  server.keepAliveTimeout = 10_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path: string) => `http://127.0.0.1:${port}${path}`,
    firstByte,
    byPath,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function figures(latencies: readonly number[]): LatencyFigures {
  return {
    p50Ms: round(percentile(latencies, 50), 1),
    p95Ms: round(percentile(latencies, 95), 1),
    p99Ms: round(percentile(latencies, 99), 1),
    samples: latencies.length,
  };
}

/** Sends `count` messages at `rate`/s, each by `send(i)`; returns the send times (epoch ms) by index. */
async function offer(count: number, rate: number, send: (i: number) => Promise<void>): Promise<number[]> {
  const sentAt: number[] = new Array(count);
  const started = Date.now();
  const inFlight: Promise<void>[] = [];
  for (let i = 0; i < count; i++) {
    const due = started + (i * 1000) / rate;
    const wait = due - Date.now();
    if (wait > 0) await sleep(wait);
    sentAt[i] = Date.now();
    inFlight.push(send(i));
  }
  await Promise.all(inFlight);
  return sentAt;
}

async function untilArrived(arrived: () => number, count: number, what: string): Promise<void> {
  const started = Date.now();
  while (arrived() < count) {
    if (Date.now() - started > HANG_GUARD_MS)
      throw new Error(`figure 20: ${what} hung (${arrived()} of ${count})`);
    await sleep(20);
  }
}

/**
 * Loops that receive `from` as the cloud's pollers do (`EVENT_SOURCE_POLLERS`: two long-polling
 * loops, each handing a batch to `handle` and polling again while fewer than five batches run),
 * and delete what was handled, until stopped.
 */
function pollLoops(
  bench: BenchCloud,
  from: string,
  handle: (bodies: string[]) => Promise<void>,
): { stop(): Promise<void> } {
  let stopping = false;
  const batches = new Set<Promise<void>>();
  const slot = async () => {
    while (batches.size >= EVENT_SOURCE_POLLERS.batches) await Promise.race(batches);
  };
  const run = async () => {
    while (!stopping) {
      await slot();
      const out = await bench.sqs.send(
        new ReceiveMessageCommand({ QueueUrl: from, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }),
      );
      const messages = out.Messages ?? [];
      if (messages.length === 0) continue;
      await slot();
      const batch: Promise<void> = (async () => {
        await handle(messages.map((m) => m.Body ?? ''));
        await bench.sqs.send(
          new DeleteMessageBatchCommand({
            QueueUrl: from,
            Entries: messages.map((m, j) => ({ Id: String(j), ReceiptHandle: m.ReceiptHandle })),
          }),
        );
      })().finally(() => batches.delete(batch));
      batches.add(batch);
    }
  };
  const running = Array.from({ length: EVENT_SOURCE_POLLERS.receivers }, run);
  return {
    async stop() {
      stopping = true;
      await Promise.all(running);
      await Promise.all(batches);
    },
  };
}

/** The floor: A → (B →) POST, no service code between; latencies of `count` sends at `rate`. */
async function floor(
  bench: BenchCloud,
  receiver: Awaited<ReturnType<typeof stampingReceiver>>,
  hops: 1 | 2,
  tag: string,
  count: number,
  rate: number,
): Promise<number[]> {
  const agent = new Agent({ connections: 16 });
  const a = await bench.queue(`latency-a-${hops}`);
  const b = hops === 2 ? await bench.queue(`latency-b-${hops}`) : a;
  const post = async (bodies: string[]) => {
    await Promise.all(
      bodies.map(async (body) => {
        const answer = await request(receiver.url('/floor'), {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
          dispatcher: agent,
        });
        await answer.body.dump();
      }),
    );
  };
  const forward = async (bodies: string[]) => {
    await bench.sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: b,
        Entries: bodies.map((body, j) => ({ Id: String(j), MessageBody: body })),
      }),
    );
  };
  const loops =
    hops === 2 ? [pollLoops(bench, a, forward), pollLoops(bench, b, post)] : [pollLoops(bench, a, post)];
  try {
    const text = (i: number) => `${tag}:floor${hops}:${i}`;
    const sentAt = await offer(count, rate, async (i) => {
      await bench.sqs.send(
        new SendMessageCommand({ QueueUrl: a, MessageBody: JSON.stringify({ text: text(i) }) }),
      );
    });
    await untilArrived(
      () => sentAt.filter((_, i) => receiver.firstByte.has(text(i))).length,
      count,
      `the ${hops}-queue floor`,
    );
    return sentAt.map((at, i) => (receiver.firstByte.get(text(i)) as number) - at);
  } finally {
    await Promise.all(loops.map((l) => l.stop()));
    await agent.close();
  }
}

/** A run of published notifications: each one's send time and its arrivals (once all came). */
async function service(
  publish: (input: { text: string; orderingKey?: string }) => Promise<void>,
  label: string,
  count: number,
  rate: number,
  keyed: boolean,
  arrivals: (text: string) => number[] | undefined,
): Promise<{ sent: Map<string, number>; arrived: Map<string, number[]> }> {
  const text = (i: number) => `${STAGE_TRACE_MARK}${label}:${i}`;
  const sentAt = await offer(count, rate, (i) =>
    publish({ text: text(i), ...(keyed ? { orderingKey: `${label}:key:${i % KEYS}` } : {}) }),
  );
  await untilArrived(
    () => sentAt.filter((_, i) => arrivals(text(i)) !== undefined).length,
    count,
    `the service (${label})`,
  );
  const sent = new Map(sentAt.map((at, i) => [text(i), at]));
  return { sent, arrived: new Map([...sent.keys()].map((t) => [t, arrivals(t) as number[]])) };
}

/** Latencies of a run: every arrival − its send (`last`: only the last arrival of each). */
function latenciesOf(run: Awaited<ReturnType<typeof service>>, last = false): number[] {
  return [...run.sent].flatMap(([text, at]) => {
    const times = run.arrived.get(text) ?? [];
    return last ? [Math.max(...times) - at] : times.map((t) => t - at);
  });
}

export async function publishLatencyFigure(
  bench: BenchCloud,
  options: { seconds: number; ratePerSecond: number },
): Promise<PublishLatencyResult> {
  const { publishNotification } = await import('../shared/notifications/publisher');
  const receiver = await stampingReceiver();
  const tag = randomBytes(4).toString('hex');
  const destination = await destinationOwner(bench, NOTIFICATION, tag);
  try {
    const owners: Record<'plain' | 'ordered' | 'many' | 'aws', number> = {
      plain: 0,
      ordered: 0,
      many: 0,
      aws: destination.userId,
    };
    for (const kind of ['plain', 'ordered'] as const) {
      const made = await ownerWithWebhook(bench.cloud.endpoints.gateway, `bench-latency-${kind}-${tag}`, {
        name: `bench latency ${kind}`,
        url: receiver.url(`/${kind}`),
        notificationType: NOTIFICATION,
        ordered: kind === 'ordered',
      });
      owners[kind] = made.userId;
    }
    const many = await manyWebhooksOwner(NOTIFICATION, receiver.url, tag);
    owners.many = many.userId;
    const publishTo =
      (kind: keyof typeof owners) => async (input: { text: string; orderingKey?: string }) => {
        await publishNotification({ notificationType: NOTIFICATION, recipients: [owners[kind]], ...input });
      };
    const one = (text: string) => {
      const at = receiver.firstByte.get(text);
      return at === undefined ? undefined : [at];
    };
    const five = (text: string) => {
      const times = many.paths.map((path) => receiver.byPath.get(`${path} ${text}`));
      return times.every((t) => t !== undefined) ? (times as number[]) : undefined;
    };
    const inCustomerQueue = (text: string) => {
      const at = destination.arrived.get(text);
      return at === undefined ? undefined : [at];
    };
    const count = Math.max(20, Math.round(options.seconds * options.ratePerSecond));
    const rate = options.ratePerSecond;
    const half = Math.ceil(count / 2);
    // The AWS destination runs half as many notifications. The 1,000-webhook owner gets a fifth
    // of the rate, so its 5 matching webhooks get the same 20 deliveries a second as the others:
    // at 20 notifications a second fan-out would read 20,000 subscription items and evaluate
    // 19,900 filters a second, more than the local cloud's DynamoDB Local and one process sustain
    // (a backlog of seconds, measured).
    const awsHalf = Math.ceil(half / 2);
    const manyRate = rate / MANY_MATCHING;
    const manyHalf = Math.ceil(half / MANY_MATCHING);
    // Warm-up, untimed: every path once through the cloud's consumers (their modules, connections
    // and JIT), and the 1,000-webhook owner's 995 filters compiled once per container (ADR 0010).
    // Cold starts are figure 5's; this figure is the steady state at the offered rate. The filters
    // first: compiling 995 of them leaves the cloud's heap a collection to make, which landed in
    // the first timed run when they came last (a 129 ms stall of the cloud's event loop).
    await service(publishTo('many'), `${tag}:wm`, WARM_UP / MANY_MATCHING, manyRate, false, five);
    await service(publishTo('plain'), `${tag}:wp`, WARM_UP, rate, false, one);
    await service(publishTo('ordered'), `${tag}:wo`, WARM_UP, rate, true, one);
    await service(publishTo('aws'), `${tag}:wa`, WARM_UP, rate, false, inCustomerQueue);
    const runs = {
      service: [] as Awaited<ReturnType<typeof service>>[],
      ordered: [] as Awaited<ReturnType<typeof service>>[],
      many: [] as Awaited<ReturnType<typeof service>>[],
      aws: [] as Awaited<ReturnType<typeof service>>[],
    };
    const floors = { two: [] as number[], one: [] as number[] };
    // Two rounds of each, alternating.
    for (const round of [1, 2]) {
      runs.service.push(await service(publishTo('plain'), `${tag}:s${round}`, half, rate, false, one));
      floors.two.push(...(await floor(bench, receiver, 2, `${tag}:r${round}`, half, rate)));
      runs.ordered.push(await service(publishTo('ordered'), `${tag}:o${round}`, half, rate, true, one));
      floors.one.push(...(await floor(bench, receiver, 1, `${tag}:r${round}`, half, rate)));
      runs.aws.push(
        await service(publishTo('aws'), `${tag}:a${round}`, awsHalf, rate, false, inCustomerQueue),
      );
      runs.many.push(await service(publishTo('many'), `${tag}:m${round}`, manyHalf, manyRate, false, five));
    }
    const all = (list: Awaited<ReturnType<typeof service>>[], last = false) =>
      list.flatMap((run) => latenciesOf(run, last));
    const result = {
      service: figures(all(runs.service)),
      ordered: figures(all(runs.ordered)),
      many: {
        ...figures(all(runs.many)),
        lastOfFive: figures(all(runs.many, true)),
        webhooks: MANY_WEBHOOKS,
        matching: MANY_MATCHING,
        ratePerSecond: manyRate,
      },
      awsDestination: figures(all(runs.aws)),
      twoQueueFloor: figures(floors.two),
      oneQueueFloor: figures(floors.one),
    };
    // The cloud writes its trace each second.
    await sleep(2_000);
    // BENCH_KEEP_TRACE=<file>: the cloud's stage trace kept there (the cloud's state directory goes with it).
    if (process.env.BENCH_KEEP_TRACE) copyFileSync(bench.stageTraceFile, process.env.BENCH_KEEP_TRACE);
    const sentOf = (list: Awaited<ReturnType<typeof service>>[]) =>
      new Map(list.flatMap((run) => [...run.sent]));
    const byText = (text: string) => receiver.firstByte.get(text);
    const unordered = stageBreakdown(bench.stageTraceFile, sentOf(runs.service), byText);
    const ordered = stageBreakdown(bench.stageTraceFile, sentOf(runs.ordered), byText);
    const floor2 = result.twoQueueFloor;
    const ratio = (f: LatencyFigures, p: 'p50Ms' | 'p99Ms') => round(f[p] / floor2[p]);
    return {
      ratePerSecond: rate,
      seconds: options.seconds,
      ...result,
      p50Ratio: ratio(result.service, 'p50Ms'),
      p99Ratio: ratio(result.service, 'p99Ms'),
      orderedP50Ratio: ratio(result.ordered, 'p50Ms'),
      orderedP99Ratio: ratio(result.ordered, 'p99Ms'),
      manyP50Ratio: ratio(result.many, 'p50Ms'),
      manyP99Ratio: ratio(result.many, 'p99Ms'),
      awsP50Ratio: ratio(result.awsDestination, 'p50Ms'),
      awsP99Ratio: ratio(result.awsDestination, 'p99Ms'),
      breakdown: {
        ...(unordered ? { unordered } : {}),
        ...(ordered ? { ordered } : {}),
      },
    };
  } finally {
    await destination.stop();
    await receiver.close();
  }
}
