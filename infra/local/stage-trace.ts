/**
 * Where a message waits inside the local cloud, for bench figure 20's per-stage breakdown: when
 * `LOCAL_STAGE_TRACE` names a file and `LOCAL_STAGE_TRACE_MARK` a string, every batch a queue
 * poller receives with a body containing the mark is traced, as JSON lines appended to the file:
 * - `receive`: when the poller's loop asked (`asked`) and when the answer came (`at`), each
 *   message's `text`, and the emulator's `SentTimestamp` of each (when the sender's message was
 *   accepted);
 * - `invoke` and `delete`: the consumer's invocation and the batch's deletes;
 * - `sdk`: every HTTP request an AWS SDK client makes within the invocation (its operation, from
 *   `x-amz-target`), from `node:diagnostics_channel`;
 * - `post`: every request undici starts within it (a webhook's POST), with the `text` it carries.
 * Each second, the event loop's delay (p50/p99/max) is written too: one process runs the
 * emulators, pollers and handlers, so a stalled loop delays every stage.
 *
 * Nothing is traced unless both variables are set, and only marked batches then; production code
 * is not touched (an AsyncLocalStorage scope around the invocation, and the diagnostics channels).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { subscribe } from 'node:diagnostics_channel';
import { appendFile } from 'node:fs/promises';
import type { ClientRequest } from 'node:http';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { Message } from '@aws-sdk/client-sqs';

export interface BatchTrace {
  readonly id: number;
  readonly queue: string;
}

const FLUSH_MS = 1000;
/** The event-loop monitor's timer (ms): its samples are this plus the loop's delay. */
const LOOP_RESOLUTION_MS = 10;

/** The `text` a queue message carries: a notification's, a delivery's, or a fan-out follow-up's. */
function textOf(body: string): string | undefined {
  try {
    const json = JSON.parse(body) as { text?: unknown; continuation?: { notification?: { text?: unknown } } };
    const text = json.text ?? json.continuation?.notification?.text;
    return typeof text === 'string' ? text : undefined;
  } catch {
    return undefined;
  }
}

function bodyText(body: unknown): string {
  if (typeof body === 'string') return body;
  if (body instanceof Uint8Array) return Buffer.from(body).toString('utf8');
  return '';
}

class StageTrace {
  private readonly scope = new AsyncLocalStorage<BatchTrace>();
  private lines: string[] = [];
  private batches = 0;
  private readonly started = new WeakMap<object, { batch: BatchTrace; s: number; op: string }>();

  constructor(
    private readonly file: string,
    private readonly mark: string,
  ) {
    subscribe('http.client.request.start', (message) => {
      const batch = this.scope.getStore();
      if (!batch) return;
      const request = (message as { request: ClientRequest }).request;
      const target = request.getHeader('x-amz-target');
      const op = typeof target === 'string' ? (target.split('.').pop() ?? target) : request.path;
      this.started.set(request, { batch, s: Date.now(), op });
    });
    subscribe('http.client.response.finish', (message) => {
      const { request } = message as { request: ClientRequest };
      const start = this.started.get(request);
      if (!start) return;
      this.started.delete(request);
      this.write({
        b: start.batch.id,
        q: start.batch.queue,
        k: 'sdk',
        op: start.op,
        s: start.s,
        e: Date.now(),
      });
    });
    subscribe('undici:request:create', (message) => {
      const batch = this.scope.getStore();
      if (!batch) return;
      const request = (message as { request: { body?: unknown } }).request;
      const body = bodyText(request.body);
      this.write({
        b: batch.id,
        q: batch.queue,
        k: 'post',
        s: Date.now(),
        text: textOf(body),
      });
    });
    const loop = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS });
    const delayMs = (ns: number) => Math.max(0, ns / 1e6 - LOOP_RESOLUTION_MS);
    loop.enable();
    setInterval(() => {
      if (loop.count > 0)
        this.lines.push(
          JSON.stringify({
            k: 'loop',
            at: Date.now(),
            p50: delayMs(loop.percentile(50)),
            p99: delayMs(loop.percentile(99)),
            max: delayMs(loop.max),
          }),
        );
      loop.reset();
      const lines = this.lines;
      this.lines = [];
      if (lines.length > 0) void appendFile(this.file, `${lines.join('\n')}\n`).catch(() => undefined);
    }, FLUSH_MS).unref();
  }

  private write(line: Record<string, unknown>): void {
    this.lines.push(JSON.stringify(line));
  }

  /** A trace of the batch, if any of its bodies carries the mark. */
  received(queue: string, messages: readonly Message[], asked: number): BatchTrace | undefined {
    if (!messages.some((m) => m.Body?.includes(this.mark))) return undefined;
    const batch = { id: ++this.batches, queue };
    this.write({
      b: batch.id,
      q: queue,
      k: 'receive',
      asked,
      at: Date.now(),
      texts: messages.map((m) => textOf(m.Body ?? '')),
      sent: messages.map((m) => Number(m.Attributes?.SentTimestamp ?? 0)),
    });
    return batch;
  }

  /** Runs a step of a traced batch (`kind`: its invocation, its deletes) in the batch's scope. */
  async step<T>(batch: BatchTrace, kind: 'invoke' | 'delete', fn: () => Promise<T>): Promise<T> {
    const s = Date.now();
    try {
      return await this.scope.run(batch, fn);
    } finally {
      this.write({ b: batch.id, q: batch.queue, k: kind, s, e: Date.now() });
    }
  }
}

/** The cloud's stage trace, or undefined when it is not asked for (the usual case). */
const stageTrace: StageTrace | undefined =
  process.env.LOCAL_STAGE_TRACE && process.env.LOCAL_STAGE_TRACE_MARK
    ? new StageTrace(process.env.LOCAL_STAGE_TRACE, process.env.LOCAL_STAGE_TRACE_MARK)
    : undefined;

/** A poller's received batch: traced when the trace is on and a body carries its mark. */
export const traceReceived = (queue: string, messages: readonly Message[], asked: number) =>
  stageTrace?.received(queue, messages, asked);

/** A step of a poller's batch, in the batch's trace scope when it is traced. */
export const traceStep = <T>(
  batch: BatchTrace | undefined,
  kind: 'invoke' | 'delete',
  fn: () => Promise<T>,
) => (stageTrace && batch ? stageTrace.step(batch, kind, fn) : fn());
