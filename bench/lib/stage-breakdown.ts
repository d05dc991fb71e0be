/**
 * Figure 20's per-stage breakdown: where a notification waited between the producer's
 * `SendMessage` and the receiver's first byte, read from the local cloud's stage trace
 * (infra/local/stage-trace.ts) of the figure's marked notifications.
 *
 * Per notification (one delivery each), from the same machine's clock:
 * - the intake message's `SentTimestamp` (the emulator accepted the send), when an intake poller's
 *   receive answered with it and when that loop had asked (after the send: it waited for a free
 *   loop), the fan-out invocation's start;
 * - its delivery message's `SentTimestamp` (fan-out's `SendMessageBatch` accepted), the deliveries
 *   poller's receive, the delivery invocation's start, the POST that carried its `text`, and the
 *   receiver's first byte.
 * The SDK calls inside each invocation are timed by operation (the batch's, so a batch of several
 * notifications shows their calls together). `tail` is the mean of each stage over the
 * notifications at or past the end-to-end p95: where the slowest waited.
 */
import { readFileSync } from 'node:fs';
import { percentile, round } from './stats';

interface ReceiveLine {
  k: 'receive';
  b: number;
  q: string;
  asked: number;
  at: number;
  texts: (string | null)[];
  sent: number[];
}
interface SpanLine {
  k: 'invoke' | 'delete' | 'sdk';
  b: number;
  q: string;
  s: number;
  e: number;
  op?: string;
}
interface PostLine {
  k: 'post';
  b: number;
  q: string;
  s: number;
  text?: string;
}
interface LoopLine {
  k: 'loop';
  at: number;
  p50: number;
  p99: number;
  max: number;
}
type TraceLine = ReceiveLine | SpanLine | PostLine | LoopLine;

interface Received {
  batch: number;
  size: number;
  sent: number;
  asked: number;
  at: number;
}

interface StageFigure {
  stage: string;
  p50Ms: number;
  p99Ms: number;
  /** Mean over the notifications at or past the end-to-end p95. */
  tailMeanMs: number;
}

export interface StageBreakdown {
  notifications: number;
  stages: StageFigure[];
  /** Batch sizes the intake and deliveries pollers handed over (p50 / max). */
  intakeBatch: { p50: number; max: number };
  deliveryBatch: { p50: number; max: number };
  /** The cloud process's event-loop delay while the notifications were in flight: p99 of the seconds' p99, and the max. */
  loopDelayMs: { p99: number; max: number };
}

const INTAKE = new Set(['notifications', 'notificationsOrdered']);
const DELIVERY = new Set(['deliveries', 'deliveriesOrdered']);

function readTrace(file: string): TraceLine[] {
  let text = '';
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as TraceLine);
}

/** The first receive of each text on the queues of `queues`. */
function receivesOf(lines: readonly TraceLine[], queues: ReadonlySet<string>): Map<string, Received> {
  const out = new Map<string, Received>();
  for (const line of lines) {
    if (line.k !== 'receive' || !queues.has(line.q)) continue;
    line.texts.forEach((text, i) => {
      if (text && !out.has(text))
        out.set(text, {
          batch: line.b,
          size: line.texts.length,
          sent: line.sent[i] ?? 0,
          asked: line.asked,
          at: line.at,
        });
    });
  }
  return out;
}

/** The trace's stage breakdown of `sent` (text → producer send time) and `firstByte` (text → receiver). */
export function stageBreakdown(
  file: string,
  sent: ReadonlyMap<string, number>,
  firstByte: (text: string) => number | undefined,
): StageBreakdown | undefined {
  const lines = readTrace(file);
  const intake = receivesOf(lines, INTAKE);
  const delivery = receivesOf(lines, DELIVERY);
  const invokes = new Map<number, SpanLine>();
  const sdk = new Map<number, SpanLine[]>();
  const posts = new Map<string, PostLine>();
  /** The seconds (epoch) the notifications were in flight: the loop delay is read over them only. */
  const inFlight = new Set<number>();
  for (const line of lines) {
    if (line.k === 'invoke') invokes.set(line.b, line);
    else if (line.k === 'sdk') sdk.set(line.b, [...(sdk.get(line.b) ?? []), line]);
    else if (line.k === 'post' && line.text && !posts.has(line.text)) posts.set(line.text, line);
  }
  /** The batch's calls of `op` that started before `before`: their summed durations. */
  const opMs = (batch: number, op: string, before = Number.POSITIVE_INFINITY) =>
    (sdk.get(batch) ?? [])
      .filter((c) => c.op === op && c.s < before)
      .reduce((sum, c) => sum + (c.e - c.s), 0);
  const firstOpMs = (batch: number, op: string) => {
    const call = (sdk.get(batch) ?? []).find((c) => c.op === op);
    return call ? call.e - call.s : 0;
  };

  const rows: Record<string, number>[] = [];
  const sizes = { intake: [] as number[], delivery: [] as number[] };
  for (const [text, sentAt] of sent) {
    const i = intake.get(text);
    const d = delivery.get(text);
    const post = posts.get(text);
    const byte = firstByte(text);
    if (!i || !d || !post || byte === undefined) continue;
    const fanOut = invokes.get(i.batch);
    const deliver = invokes.get(d.batch);
    if (!fanOut || !deliver) continue;
    for (let second = Math.floor(sentAt / 1000); second <= Math.floor(byte / 1000) + 1; second++)
      inFlight.add(second);
    sizes.intake.push(i.size);
    sizes.delivery.push(d.size);
    rows.push({
      'total: send → first byte': byte - sentAt,
      'producer SendMessage (send → accepted)': i.sent - sentAt,
      'intake poll (accepted → poller has it)': i.at - i.sent,
      '  of which waiting for a free intake loop': Math.max(0, i.asked - i.sent),
      'intake hand-over (poller → fan-out handler)': fanOut.s - i.at,
      'fan-out (handler → delivery enqueued)': d.sent - fanOut.s,
      '  lease PutItem': firstOpMs(i.batch, 'PutItem'),
      '  subscriptions Query (those before the enqueue, summed)': opMs(i.batch, 'Query', d.sent),
      '  SendMessageBatch': opMs(i.batch, 'SendMessageBatch', d.sent),
      'deliveries poll (enqueued → poller has it)': d.at - d.sent,
      '  of which waiting for a free deliveries loop': Math.max(0, d.asked - d.sent),
      'delivery hand-over (poller → delivery handler)': deliver.s - d.at,
      'delivery (handler → POST starts)': post.s - deliver.s,
      '  records Query': opMs(d.batch, 'Query', post.s),
      '  webhook GetItem': opMs(d.batch, 'GetItem', post.s),
      'POST (starts → receiver first byte)': byte - post.s,
      'after the POST (first byte → delivery batch ends)': deliver.e - byte,
      'after the enqueue (fan-out batch ends)': fanOut.e - d.sent,
    });
  }
  if (rows.length === 0) return undefined;
  const totalKey = 'total: send → first byte';
  const totals = rows.map((r) => r[totalKey] as number);
  const p95 = percentile(totals, 95);
  const tail = rows.filter((r) => (r[totalKey] as number) >= p95);
  const stages = Object.keys(rows[0] as Record<string, number>).map((stage) => {
    const values = rows.map((r) => r[stage] as number);
    return {
      stage,
      p50Ms: round(percentile(values, 50), 1),
      p99Ms: round(percentile(values, 99), 1),
      tailMeanMs: round(tail.reduce((sum, r) => sum + (r[stage] as number), 0) / tail.length, 1),
    };
  });
  const loops = lines.filter((l): l is LoopLine => l.k === 'loop' && inFlight.has(Math.floor(l.at / 1000)));
  return {
    notifications: rows.length,
    stages,
    intakeBatch: { p50: percentile(sizes.intake, 50), max: Math.max(...sizes.intake) },
    deliveryBatch: { p50: percentile(sizes.delivery, 50), max: Math.max(...sizes.delivery) },
    loopDelayMs: {
      p99: round(
        percentile(
          loops.map((l) => l.p99),
          99,
        ),
        1,
      ),
      max: round(Math.max(0, ...loops.map((l) => l.max)), 1),
    },
  };
}

/** The breakdown as printed lines. */
export function breakdownLines(label: string, b: StageBreakdown): string[] {
  const width = Math.max(...b.stages.map((s) => s.stage.length));
  return [
    `${label}: ${b.notifications} notifications; intake batches p50 ${b.intakeBatch.p50} (max ${b.intakeBatch.max}), delivery batches p50 ${b.deliveryBatch.p50} (max ${b.deliveryBatch.max}); cloud event-loop delay p99 ${b.loopDelayMs.p99} ms (max ${b.loopDelayMs.max})`,
    `  ${'stage'.padEnd(width)}   p50 ms   p99 ms   mean of the slowest 5 %`,
    ...b.stages.map(
      (s) =>
        `  ${s.stage.padEnd(width)} ${String(s.p50Ms).padStart(8)} ${String(s.p99Ms).padStart(8)} ${String(s.tailMeanMs).padStart(10)}`,
    ),
  ];
}
