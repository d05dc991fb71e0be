/**
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
 * The loops receive as the cloud's pollers do (long polls, batches of 10, two loops per queue)
 * and delete what they handled. Runs alternate service and floor so drift hits both.
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  DeleteMessageBatchCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
} from '@aws-sdk/client-sqs';
import { Agent, request } from 'undici';
import type { BenchCloud } from './lib/cloud';
import { percentile, round, sleep } from './lib/stats';
import { ownerWithWebhook } from './lib/webhook-owner';

const NOTIFICATION = 'taskValidated' as const;
const KEYS = 100;
const HANG_GUARD_MS = 5 * 60_000;

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
  twoQueueFloor: LatencyFigures;
  oneQueueFloor: LatencyFigures;
  /** service p50 / two-queue floor p50, and p99 likewise (targets ≤ 3 and ≤ 4). */
  p50Ratio: number;
  p99Ratio: number;
  orderedP50Ratio: number;
  orderedP99Ratio: number;
}

/** A receiver that stamps the first byte of each POST (its request line) by the body's `text`. */
async function stampingReceiver() {
  const firstByte = new Map<string, number>();
  const server = createServer((req, res) => {
    const at = Date.now();
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const text = (JSON.parse(body) as { text?: string }).text ?? body;
      if (!firstByte.has(text)) firstByte.set(text, at);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
  });
  server.keepAliveTimeout = 10_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path: string) => `http://127.0.0.1:${port}${path}`,
    firstByte,
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

/** Loops that receive `from` as a poller does and hand each message to `handle`, until stopped. */
function pollLoops(
  bench: BenchCloud,
  from: string,
  handle: (bodies: string[]) => Promise<void>,
  loops = 2,
): { stop(): Promise<void> } {
  let stopping = false;
  const run = async () => {
    while (!stopping) {
      const out = await bench.sqs.send(
        new ReceiveMessageCommand({ QueueUrl: from, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }),
      );
      const messages = out.Messages ?? [];
      if (messages.length === 0) continue;
      await handle(messages.map((m) => m.Body ?? ''));
      await bench.sqs.send(
        new DeleteMessageBatchCommand({
          QueueUrl: from,
          Entries: messages.map((m, j) => ({ Id: String(j), ReceiptHandle: m.ReceiptHandle })),
        }),
      );
    }
  };
  const running = Array.from({ length: loops }, run);
  return {
    async stop() {
      stopping = true;
      await Promise.all(running);
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

/** The service: published notifications, delivered by the cloud's consumers to `path`. */
async function service(
  receiver: Awaited<ReturnType<typeof stampingReceiver>>,
  publish: (input: { text: string; orderingKey?: string }) => Promise<void>,
  label: string,
  count: number,
  rate: number,
  keyed: boolean,
): Promise<number[]> {
  const text = (i: number) => `${label}:${i}`;
  const sentAt = await offer(count, rate, (i) =>
    publish({ text: text(i), ...(keyed ? { orderingKey: `${label}:key:${i % KEYS}` } : {}) }),
  );
  await untilArrived(
    () => sentAt.filter((_, i) => receiver.firstByte.has(text(i))).length,
    count,
    `the service (${label})`,
  );
  return sentAt.map((at, i) => (receiver.firstByte.get(text(i)) as number) - at);
}

export async function publishLatencyFigure(
  bench: BenchCloud,
  options: { seconds: number; ratePerSecond: number },
): Promise<PublishLatencyResult> {
  const { publishNotification } = await import('../shared/notifications/publisher');
  const receiver = await stampingReceiver();
  const tag = randomBytes(4).toString('hex');
  try {
    const owners: Record<'plain' | 'ordered', number> = { plain: 0, ordered: 0 };
    for (const kind of ['plain', 'ordered'] as const) {
      const made = await ownerWithWebhook(bench.cloud.endpoints.gateway, `bench-latency-${kind}-${tag}`, {
        name: `bench latency ${kind}`,
        url: receiver.url(`/${kind}`),
        notificationType: NOTIFICATION,
        ordered: kind === 'ordered',
      });
      owners[kind] = made.userId;
    }
    const publishTo =
      (kind: 'plain' | 'ordered') => async (input: { text: string; orderingKey?: string }) => {
        await publishNotification({ notificationType: NOTIFICATION, recipients: [owners[kind]], ...input });
      };
    const count = Math.max(20, Math.round(options.seconds * options.ratePerSecond));
    const rate = options.ratePerSecond;
    const half = Math.ceil(count / 2);
    const samples = {
      service: [] as number[],
      ordered: [] as number[],
      two: [] as number[],
      one: [] as number[],
    };
    // Two rounds of each, alternating, half the count each.
    for (const round of [1, 2]) {
      samples.service.push(
        ...(await service(receiver, publishTo('plain'), `${tag}:s${round}`, half, rate, false)),
      );
      samples.two.push(...(await floor(bench, receiver, 2, `${tag}:r${round}`, half, rate)));
      samples.ordered.push(
        ...(await service(receiver, publishTo('ordered'), `${tag}:o${round}`, half, rate, true)),
      );
      samples.one.push(...(await floor(bench, receiver, 1, `${tag}:r${round}`, half, rate)));
    }
    const result = {
      service: figures(samples.service),
      ordered: figures(samples.ordered),
      twoQueueFloor: figures(samples.two),
      oneQueueFloor: figures(samples.one),
    };
    return {
      ratePerSecond: rate,
      seconds: options.seconds,
      ...result,
      p50Ratio: round(result.service.p50Ms / result.twoQueueFloor.p50Ms),
      p99Ratio: round(result.service.p99Ms / result.twoQueueFloor.p99Ms),
      orderedP50Ratio: round(result.ordered.p50Ms / result.twoQueueFloor.p50Ms),
      orderedP99Ratio: round(result.ordered.p99Ms / result.twoQueueFloor.p99Ms),
    };
  } finally {
    await receiver.close();
  }
}
