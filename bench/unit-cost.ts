/**
 * Figure 19 — cost per million deliveries (issue 42 item 1, docs/adr/0023-cost-per-million.md).
 *
 * N notifications of about 1 KB (bench/fixtures/notification-1kb.ts) to ONE webhook go the real
 * way through this process: `publishNotification` → a bench notifications queue → the real
 * fan-out consumer → a bench deliveries queue → the real deliveries consumer → a loopback receiver
 * that answers after 50 ms; then the history records the run wrote go through the real counting
 * consumer (the history stream's), as its event source would hand them over. Two scenarios: every
 * attempt answered 200, and 3 attempts in 10 answered 500 (exactly 30 %). A failed attempt comes
 * back as SQS brings it back: the consumer sets its visibility to the retry delay, the bench sets
 * it to 0 (uncounted) so the next receive brings it at once, its receive count one higher.
 *
 * The units, each from the run (ADR 0023 says which are counted, measured or assumed): SQS
 * requests (every `SQSClient` command, the 64 KB rule applied; the event source mapping's receives
 * and deletes made here on its behalf, as it makes them), Lambda invocations and billed duration ×
 * the catalog's memory, DynamoDB units from consumed capacity, the bytes the handlers write to
 * stdout/stderr at the production log level with EMF on, X-Ray traces at the default rule,
 * data-key unwraps of the envelope's key provider (KMS Decrypt in AWS), bytes sent to the receiver.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Metrics } from '@aws-lambda-powertools/metrics';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  ChangeMessageVisibilityBatchCommand,
  DeleteMessageBatchCommand,
  type Message,
  ReceiveMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import type {
  DynamoDBBatchResponse,
  DynamoDBRecord,
  DynamoDBStreamEvent,
  SQSBatchResponse,
  SQSEvent,
  SQSRecord,
} from 'aws-lambda';
import { lambdaContext } from '../infra/local/lambda';
import { queueDef, queueEnvVar } from '../shared/catalog/queues';
import { streamConsumers } from '../shared/catalog/streams';
import { notification1Kb } from './fixtures/notification-1kb';
import { CapacityMeter, type CapacityTally } from './lib/capacity';
import { type BenchCloud, sqsEvent, sqsRecord } from './lib/cloud';
import { round, runPool } from './lib/stats';
import { type CostTable, costPerMillion, sampledShare, type UnitsPerDelivery } from './lib/unit-price';
import { PRICES } from './prices';

const TYPE = 'dataSourceUpdated';
/** The receiver's answer time. */
const RECEIVER_MS = 50;
/** The attempts (of each ten, by arrival) the failing receiver answers 500: 30 %. */
const FAILING = new Set([2, 5, 8]);
/** SQS bills each 64 KB of a request's payload as one request. */
const SQS_CHUNK = 64 * 1024;
/**
 * The steady rate the X-Ray reservoir is shared over (deliveries/s, service-wide): at this rate
 * the reservoir's one trace a second per function adds little to the 5 %.
 */
const ASSUMED_DELIVERIES_PER_SECOND = 100;
/** Concurrent "invocations" per consumer (a shared 2-core machine: few, so durations stay honest). */
const WORKERS = 2;
/** A representative X-Ray header as Lambda sets it: the logger adds its root to every line. */
const TRACE_HEADER = 'Root=1-6746d3a1-5a8f0c1e2b3d4f5a6b7c8d9e;Parent=53995c3f42cd8ad8;Sampled=1';

/**
 * Lambda's own lines per invocation (text format, active tracing): not written by the handlers,
 * so not captured; **estimated** from their documented format with typical values.
 */
const PLATFORM_LINES = [
  'START RequestId: 8f5b6c1e-2a3d-4e5f-9a8b-7c6d5e4f3a2b Version: $LATEST\n',
  'END RequestId: 8f5b6c1e-2a3d-4e5f-9a8b-7c6d5e4f3a2b\n',
  'REPORT RequestId: 8f5b6c1e-2a3d-4e5f-9a8b-7c6d5e4f3a2b\tDuration: 63.12 ms\tBilled Duration: 64 ms\tMemory Size: 512 MB\tMax Memory Used: 98 MB\t\nXRAY TraceId: 1-6746d3a1-5a8f0c1e2b3d4f5a6b7c8d9e\tSegmentId: 53995c3f42cd8ad8\tSampled: true\t\n',
];
const PLATFORM_BYTES_PER_INVOCATION = PLATFORM_LINES.reduce((s, l) => s + Buffer.byteLength(l), 0);

type QueueHandler = (event: SQSEvent, context: ReturnType<typeof lambdaContext>) => Promise<SQSBatchResponse>;
type StreamHandler = (event: DynamoDBStreamEvent) => Promise<DynamoDBBatchResponse>;

interface SqsTally {
  calls: number;
  billed: number;
}

/**
 * Counts every command any `SQSClient` in this process sends (the service's client in
 * shared/store/queues.ts is module-private, so its prototype's `send` is wrapped), with the
 * requests AWS bills for it: one per 64 KB of payload, at least one. The event source mapping's
 * stand-in client is tallied apart; the bench's own housekeeping client is not counted.
 */
class SqsMeter {
  readonly service: Record<string, SqsTally> = {};
  readonly esm: Record<string, SqsTally> = {};
  private restore: (() => void) | undefined;

  constructor(
    private readonly esmClient: SQSClient,
    private readonly uncounted: SQSClient,
  ) {}

  install(): void {
    type Send = (this: SQSClient, command: object, ...rest: unknown[]) => Promise<unknown>;
    const proto = SQSClient.prototype as unknown as { send: Send };
    const own = Object.hasOwn(proto, 'send');
    const original = proto.send;
    const meter = this;
    proto.send = async function (this: SQSClient, command: object, ...rest: unknown[]) {
      const out = await original.call(this, command, ...rest);
      if (this !== meter.uncounted) meter.count(this === meter.esmClient, command, out);
      return out;
    };
    this.restore = () => {
      if (own) proto.send = original;
      else delete (proto as { send?: Send }).send;
    };
  }

  uninstall(): void {
    this.restore?.();
    this.restore = undefined;
  }

  private count(esm: boolean, command: object, out: unknown): void {
    let name = command.constructor.name.replace(/Command$/, '');
    const input = (command as { input: Record<string, unknown> }).input;
    let bytes = 0;
    if (name === 'SendMessage') bytes = messageBytes(input);
    else if (name === 'SendMessageBatch')
      bytes = ((input.Entries ?? []) as Record<string, unknown>[]).reduce((s, e) => s + messageBytes(e), 0);
    else if (name === 'ReceiveMessage') {
      const messages = ((out as { Messages?: Message[] }).Messages ?? []) as Record<string, unknown>[];
      bytes = messages.reduce((s, m) => s + messageBytes(m), 0);
      if (messages.length === 0) name = 'ReceiveMessage (empty)';
    }
    const tally = esm ? this.esm : this.service;
    const entry = tally[name] ?? { calls: 0, billed: 0 };
    entry.calls += 1;
    entry.billed += Math.max(1, Math.ceil(bytes / SQS_CHUNK));
    tally[name] = entry;
  }
}

/** A message's payload: its body and its attributes' names, types and values. */
function messageBytes(message: Record<string, unknown>): number {
  let bytes = Buffer.byteLength(String(message.MessageBody ?? message.Body ?? ''));
  const attributes = (message.MessageAttributes ?? {}) as Record<string, Record<string, unknown>>;
  for (const [name, value] of Object.entries(attributes)) {
    bytes += Buffer.byteLength(name) + Buffer.byteLength(String(value.DataType ?? ''));
    bytes +=
      Buffer.byteLength(String(value.StringValue ?? '')) + ((value.BinaryValue as Uint8Array)?.length ?? 0);
  }
  return bytes;
}

/**
 * What the handlers write to stdout and stderr (what Lambda sends to CloudWatch Logs), counted
 * and swallowed while a phase runs. EMF lines are written only when metrics are on: the bench
 * runs with them off, so while capturing, the shared Metrics instance publishes as in production.
 */
class LogCapture {
  bytes = 0;
  lines = 0;
  emfLines = 0;
  /** One line of each kind, for the report. */
  readonly samples: string[] = [];
  private restore: (() => void) | undefined;

  start(): void {
    const streams = [process.stdout, process.stderr] as const;
    const originals = streams.map((s) => s.write);
    const capture = (chunk: unknown, ...rest: unknown[]): boolean => {
      const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('utf8');
      this.bytes += Buffer.byteLength(text);
      for (const line of text.split('\n').filter(Boolean)) {
        this.lines += 1;
        const emf = line.includes('"_aws"');
        if (emf) this.emfLines += 1;
        const kind = emf ? 'emf' : (/"message":"([^"]*)"/.exec(line)?.[1] ?? 'other');
        if (this.samples.length < 6 && !this.samples.some((s) => s.startsWith(`${kind}: `)))
          this.samples.push(`${kind}: ${line.slice(0, 400)}`);
      }
      const callback = rest.find((r) => typeof r === 'function') as (() => void) | undefined;
      callback?.();
      return true;
    };
    for (const s of streams) s.write = capture as typeof s.write;
    const proto = Metrics.prototype as unknown as { publishStoredMetrics(this: Metrics): void };
    const publish = proto.publishStoredMetrics;
    proto.publishStoredMetrics = function (this: Metrics) {
      const self = this as unknown as { disabled: boolean };
      const was = self.disabled;
      self.disabled = false;
      try {
        publish.call(this);
      } finally {
        self.disabled = was;
      }
    };
    this.restore = () => {
      streams.forEach((s, i) => {
        s.write = originals[i] as typeof s.write;
      });
      proto.publishStoredMetrics = publish;
    };
  }

  stop(): void {
    this.restore?.();
    this.restore = undefined;
  }
}

/** Counts the key provider's calls: KMS `Decrypt` / `GenerateDataKey` in AWS. */
async function kmsCounter(): Promise<{ decrypts: number; dataKeys: number; stop(): void }> {
  const { LocalKeyProvider } = await import('../shared/crypto/envelope');
  const proto = LocalKeyProvider.prototype;
  const unwrap = proto.unwrapDataKey;
  const generate = proto.generateDataKey;
  const counter = {
    decrypts: 0,
    dataKeys: 0,
    stop() {
      proto.unwrapDataKey = unwrap;
      proto.generateDataKey = generate;
    },
  };
  proto.unwrapDataKey = function (this: InstanceType<typeof LocalKeyProvider>, ...args) {
    counter.decrypts += 1;
    return unwrap.apply(this, args);
  };
  proto.generateDataKey = function (this: InstanceType<typeof LocalKeyProvider>, ...args) {
    counter.dataKeys += 1;
    return generate.apply(this, args);
  };
  return counter;
}

/**
 * What DynamoDB Local reports differently from AWS's bill (checked against an in-memory DynamoDB
 * Local: a 3-item transaction reported 2 units; a failed condition, none): AWS bills a
 * TransactWriteItems 2 units per item of ≤ 1 KB, and a write whose condition fails at least 1.
 * Per phase, the units to add to the reported ones: each transaction item at 2 × its KB (a Put's
 * size from its marshalled item, an Update, Delete or ConditionCheck at 2 — the counters and
 * markers are small), less what was reported; each failed condition at 1.
 */
class LocalCapacityGaps {
  transactions = 0;
  failedConditions = 0;
  addedWcu = 0;
  private active = false;

  install(client: DynamoDBClient): void {
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const command = String((context as { commandName?: string }).commandName ?? '');
        if (!this.active) return next(args);
        const input = args.input as { TransactItems?: Record<string, { Item?: unknown }>[] };
        try {
          const result = await next(args);
          if (command === 'TransactWriteItemsCommand') {
            const billed = (input.TransactItems ?? []).reduce((sum, item) => {
              const put = item.Put?.Item;
              return (
                sum + 2 * (put ? Math.max(1, Math.ceil(Buffer.byteLength(JSON.stringify(put)) / 1024)) : 1)
              );
            }, 0);
            const consumed = (result.output as { ConsumedCapacity?: { CapacityUnits?: number }[] })
              .ConsumedCapacity;
            const reported = (consumed ?? []).reduce((sum, c) => sum + Number(c.CapacityUnits ?? 0), 0);
            this.transactions += 1;
            this.addedWcu += Math.max(0, billed - reported);
          }
          return result;
        } catch (error) {
          if ((error as Error).name === 'ConditionalCheckFailedException') {
            this.failedConditions += 1;
            this.addedWcu += 1;
          }
          throw error;
        }
      },
      { step: 'initialize', name: 'causewayBenchLocalCapacityGaps', override: true },
    );
  }

  start(): void {
    this.transactions = 0;
    this.failedConditions = 0;
    this.addedWcu = 0;
    this.active = true;
  }

  stop(): void {
    this.active = false;
  }
}

interface CostReceiver {
  url: string;
  ok: number;
  failed: number;
  /** Bytes received: request line, headers and body (what leaves AWS as data transfer out). */
  bytes: number;
  failing: boolean;
  close(): Promise<void>;
}

async function startCostReceiver(): Promise<CostReceiver> {
  let arrivals = 0;
  const state = { ok: 0, failed: 0, bytes: 0, failing: false };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let bytes = Buffer.byteLength(`${req.method} ${req.url} HTTP/1.1\r\n\r\n`);
    for (let i = 0; i < req.rawHeaders.length; i += 2)
      bytes += Buffer.byteLength(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}\r\n`);
    req.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
    });
    req.on('end', () => {
      state.bytes += bytes;
      const fail = state.failing && FAILING.has(arrivals++ % 10);
      setTimeout(() => {
        if (fail) state.failed += 1;
        else state.ok += 1;
        res.writeHead(fail ? 500 : 200, { 'content-type': 'application/json' });
        res.end(fail ? '{"ok":false}' : '{"ok":true}');
      }, RECEIVER_MS);
    });
  });
  server.keepAliveTimeout = 10_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(state, {
    url: `http://127.0.0.1:${port}`,
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  });
}

interface FunctionUse {
  invocations: number;
  billedMs: number;
  memoryMb: number;
  gbSeconds: number;
  capacity: CapacityTally;
  logBytes: number;
  logLines: number;
  emfLines: number;
  /** Units added to DynamoDB Local's report (LocalCapacityGaps), and why. */
  localGaps: { transactions: number; failedConditions: number; addedWcu: number };
}

interface UnitCostScenario {
  scenario: string;
  notifications: number;
  deliveries: number;
  attempts: number;
  functions: { fanOut: FunctionUse; deliver: FunctionUse; countHistory: FunctionUse };
  sqs: {
    /** The service's own commands (producer's publish, fan-out's sends, the consumer's visibility changes). */
    counted: Record<string, SqsTally>;
    /** Receives and deletes made here as the event source mapping makes them. */
    eventSource: Record<string, SqsTally>;
  };
  kms: { decrypts: number; dataKeys: number };
  egressBytes: number;
  logSamples: string[];
  units: UnitsPerDelivery;
  cost: CostTable;
}

export interface UnitCostResult {
  scenarios: UnitCostScenario[];
  assumptions: {
    deliveriesPerSecondForXRay: number;
    platformLogBytesPerInvocation: number;
    receiverMs: number;
    batchesFull: boolean;
  };
  prices: typeof PRICES;
  target: { perMillionAtMost: number; met: boolean };
}

const emptyUse = (memoryMb: number): FunctionUse => ({
  invocations: 0,
  billedMs: 0,
  memoryMb,
  gbSeconds: 0,
  capacity: { rcu: 0, wcu: 0, reads: 0, writes: 0 },
  logBytes: 0,
  logLines: 0,
  emfLines: 0,
  localGaps: { transactions: 0, failedConditions: 0, addedWcu: 0 },
});

export async function unitCost(
  bench: BenchCloud,
  options: { notifications: number },
): Promise<UnitCostResult> {
  const { dynamodb } = await import('../shared/store/clients');
  const { tableName } = await import('../shared/store/tables');
  const { createPrincipalWithKey } = await import('../shared/auth/keys');
  const { createWebhooks } = await import('../shared/webhooks/api/webhooks');
  const { publishNotification } = await import('../shared/notifications/publisher');
  const load = async <H>(module: string) => ((await import(`../${module}`)) as { handler: H }).handler;
  const fanOutDef = queueDef('notifications').consumer;
  const deliverDef = queueDef('deliveries').consumer;
  const countDef = streamConsumers.find((s) => s.name === 'historyCounts');
  if (!countDef) throw new Error('no historyCounts stream consumer in the catalog');
  const fanOut = await load<QueueHandler>(fanOutDef.handler);
  const deliver = await load<QueueHandler>(deliverDef.handler);
  const countHistory = await load<StreamHandler>(countDef.handler);

  const esm = new SQSClient({});
  const housekeeping = new SQSClient({});
  const receiver = await startCostReceiver();
  const capacity = new CapacityMeter();
  capacity.install(dynamodb);
  const gaps = new LocalCapacityGaps();
  gaps.install(dynamodb);
  const historyTable = tableName('deliveryHistory');
  const written: Record<string, unknown>[] = [];
  let capturing = false;
  // The history records' PutItems, as the stream would carry their new images (marshalled by now).
  dynamodb.middlewareStack.add(
    (next, context) => async (args) => {
      const result = await next(args);
      const input = args.input as { TableName?: string; Item?: Record<string, unknown> };
      if (
        capturing &&
        (context as { commandName?: string }).commandName === 'PutItemCommand' &&
        input.TableName === historyTable &&
        input.Item
      )
        written.push(input.Item);
      return result;
    },
    { step: 'build', name: 'causewayBenchHistoryImages', override: true },
  );

  const varNotifications = queueEnvVar('notifications');
  const varDeliveries = queueEnvVar('deliveries');
  const saved = { notifications: process.env[varNotifications], deliveries: process.env[varDeliveries] };
  try {
    /**
     * A fresh owner with one webhook: its secret is sealed now (a data key, before the meters),
     * and opened by the scenario's first delivery (a Decrypt, then cached in this container).
     */
    let round = 0;
    const makeTarget = async () => {
      const owner = await createPrincipalWithKey(`bench-unit-cost-${round++}`, []);
      const created = await createWebhooks(
        { userId: owner.userId, name: owner.name, permissions: [] },
        [
          {
            url: `${receiver.url}/cost`,
            name: 'bench unit cost',
            global: false,
            notificationType: [TYPE],
            actionType: 'triggered',
            secret: `whsec_${randomBytes(32).toString('base64')}`,
          },
        ],
        'http://localhost',
      );
      const webhook = created.createdWebhooks[0];
      if (!webhook) throw new Error(`figure 19: webhook refused: ${JSON.stringify(created.errors)}`);
      return { owner, webhook };
    };
    let target = await makeTarget();

    let counter = 0;
    const publish = () => {
      const n = counter++;
      const { text, metadata } = notification1Kb(n);
      return publishNotification({
        notificationType: TYPE,
        text,
        metadata,
        recipients: [target.owner.userId],
      });
    };

    const receive = async (url: string): Promise<Message[]> =>
      (
        await esm.send(
          new ReceiveMessageCommand({
            QueueUrl: url,
            MaxNumberOfMessages: 10,
            WaitTimeSeconds: 1,
            MessageSystemAttributeNames: ['All'],
          }),
        )
      ).Messages ?? [];

    /**
     * The event source mapping's loop over `url` with WORKERS pollers: receive ≤ 10, invoke,
     * delete what succeeded in one batch; a failed record is made visible again at once.
     */
    const pump = async (
      url: string,
      handler: QueueHandler,
      use: FunctionUse,
      expected: number,
      check: (record: SQSRecord) => void,
    ) => {
      let done = 0;
      const deadline = Date.now() + 15 * 60_000;
      await runPool(WORKERS, WORKERS, async () => {
        while (done < expected) {
          if (Date.now() > deadline) throw new Error(`figure 19: ${done} of ${expected} done in 15 minutes`);
          const messages = await receive(url);
          if (messages.length === 0) continue;
          const records = messages.map((m) => ({
            ...sqsRecord(m.Body ?? '', {
              receiptHandle: m.ReceiptHandle ?? '',
              receiveCount: Number(m.Attributes?.ApproximateReceiveCount ?? 1),
            }),
            messageId: m.MessageId ?? '',
          }));
          for (const r of records) check(r);
          const started = performance.now();
          const out = await handler(sqsEvent(records), lambdaContext('bench-unit-cost', 60_000));
          use.invocations += 1;
          use.billedMs += Math.ceil(performance.now() - started);
          const failed = new Set(out.batchItemFailures.map((f) => f.itemIdentifier));
          const ok = records.filter((r) => !failed.has(r.messageId));
          const retry = records.filter((r) => failed.has(r.messageId));
          done += ok.length;
          if (ok.length > 0)
            await esm.send(
              new DeleteMessageBatchCommand({
                QueueUrl: url,
                Entries: ok.map((r, i) => ({ Id: String(i), ReceiptHandle: r.receiptHandle })),
              }),
            );
          if (retry.length > 0)
            await housekeeping.send(
              new ChangeMessageVisibilityBatchCommand({
                QueueUrl: url,
                Entries: retry.map((r, i) => ({
                  Id: String(i),
                  ReceiptHandle: r.receiptHandle,
                  VisibilityTimeout: 0,
                })),
              }),
            );
        }
      });
    };

    const onlyOurs = (record: SQSRecord) => {
      const body = JSON.parse(record.body) as { webhookId?: number };
      if (body.webhookId !== target.webhook.id)
        throw new Error(`figure 19: a delivery to webhook ${body.webhookId}, not the one webhook`);
    };
    const anything = () => {};

    /** One scenario: the whole path for `count` notifications, each phase metered apart. */
    const freshQueues = async () => {
      process.env[varNotifications] = await bench.queue('cost-notifications');
      process.env[varDeliveries] = await bench.queue('cost-deliveries');
    };
    const runScenario = async (count: number, measured: boolean) => {
      const use = {
        fanOut: emptyUse(fanOutDef.memoryMb),
        deliver: emptyUse(deliverDef.memoryMb),
        countHistory: emptyUse(countDef.memoryMb),
      };
      const samples: string[] = [];
      const phase = async (fn: FunctionUse, body: () => Promise<void>) => {
        const capture = new LogCapture();
        if (measured) capture.start();
        gaps.start();
        try {
          const { capacity: tally } = await capacity.measure(body);
          fn.capacity = { ...tally, wcu: tally.wcu + gaps.addedWcu };
          fn.localGaps = {
            transactions: gaps.transactions,
            failedConditions: gaps.failedConditions,
            addedWcu: gaps.addedWcu,
          };
        } finally {
          gaps.stop();
          capture.stop();
        }
        fn.logBytes = capture.bytes;
        fn.logLines = capture.lines;
        fn.emfLines = capture.emfLines;
        for (const s of capture.samples) if (samples.length < 8) samples.push(s);
      };
      written.length = 0;
      capturing = true;
      await runPool(count, 8, async () => {
        await publish();
      });
      await phase(use.fanOut, () =>
        pump(process.env[varNotifications] as string, fanOut, use.fanOut, count, anything),
      );
      await phase(use.deliver, () =>
        pump(process.env[varDeliveries] as string, deliver, use.deliver, count, onlyOurs),
      );
      capturing = false;
      // The history stream's consumer, as its mapping hands the records over at a steady load:
      // batches of up to the catalog's size from one shard, in write order.
      // Re-attributed to a webhook id nothing else counts: the cloud's own stream consumer counts
      // these records too, and its raises of the webhook's newest attempt would make ours fail
      // their conditions (a cost production does not have).
      const stand = { N: String(1_900_000_000 + (Date.now() % 100_000_000)) };
      const images = written.map((image) => ({ ...image, webhooksId: stand }));
      await phase(use.countHistory, async () => {
        for (let at = 0; at < images.length; at += countDef.batchSize) {
          const records = images
            .slice(at, at + countDef.batchSize)
            .map((image, i) => streamRecord(image, at + i));
          const started = performance.now();
          const out = await countHistory({ Records: records });
          use.countHistory.invocations += 1;
          use.countHistory.billedMs += Math.ceil(performance.now() - started);
          if (out.batchItemFailures.length > 0)
            throw new Error('figure 19: the counting consumer failed a group');
        }
      });
      for (const fn of Object.values(use)) fn.gbSeconds = (fn.billedMs / 1000) * (fn.memoryMb / 1024);
      return { use, attempts: images.length, samples };
    };

    // Warm-up, not measured: modules, connections, the consumer's history id slot lease.
    receiver.failing = false;
    await freshQueues();
    await runScenario(20, false);

    const scenarios: UnitCostScenario[] = [];
    for (const failing of [false, true]) {
      receiver.failing = failing;
      receiver.ok = 0;
      receiver.failed = 0;
      receiver.bytes = 0;
      // Queues and the webhook made before the meters are on: their calls are the bench's.
      await freshQueues();
      target = await makeTarget();
      const sqs = new SqsMeter(esm, housekeeping);
      const kms = await kmsCounter();
      const env = productionLogging();
      sqs.install();
      let run: Awaited<ReturnType<typeof runScenario>>;
      try {
        run = await runScenario(options.notifications, true);
      } finally {
        sqs.uninstall();
        kms.stop();
        env.restore();
      }
      const deliveries = receiver.ok;
      if (deliveries !== options.notifications)
        throw new Error(`figure 19: ${deliveries} deliveries answered 200, not ${options.notifications}`);
      scenarios.push(
        scenario(failing ? '30 % of attempts fail' : 'every attempt answered 200', {
          notifications: options.notifications,
          deliveries,
          attempts: run.attempts,
          use: run.use,
          sqs,
          kms: { decrypts: kms.decrypts, dataKeys: kms.dataKeys },
          egressBytes: receiver.bytes,
          samples: run.samples,
        }),
      );
    }
    const perMillionAtMost = 1.5;
    return {
      scenarios,
      assumptions: {
        deliveriesPerSecondForXRay: ASSUMED_DELIVERIES_PER_SECOND,
        platformLogBytesPerInvocation: PLATFORM_BYTES_PER_INVOCATION,
        receiverMs: RECEIVER_MS,
        batchesFull: true,
      },
      prices: PRICES,
      target: {
        perMillionAtMost,
        met: scenarios.every((s) => s.cost.totalOnDemand <= perMillionAtMost),
      },
    };
  } finally {
    process.env[varNotifications] = saved.notifications;
    process.env[varDeliveries] = saved.deliveries;
    dynamodb.middlewareStack.remove('causewayBenchHistoryImages');
    dynamodb.middlewareStack.remove('causewayBenchLocalCapacityGaps');
    esm.destroy();
    housekeeping.destroy();
    await receiver.close();
  }
}

/**
 * The environment a deployed function logs with: no log level set (INFO), the production
 * service name, an X-Ray trace id per invocation (the logger adds it to every line).
 */
function productionLogging(): { restore(): void } {
  const keys = ['POWERTOOLS_LOG_LEVEL', 'LOG_LEVEL', 'POWERTOOLS_SERVICE_NAME', '_X_AMZN_TRACE_ID'] as const;
  const saved = Object.fromEntries(keys.map((k) => [k, process.env[k]]));
  delete process.env.POWERTOOLS_LOG_LEVEL;
  delete process.env.LOG_LEVEL;
  process.env.POWERTOOLS_SERVICE_NAME = 'causeway';
  process.env._X_AMZN_TRACE_ID = TRACE_HEADER;
  return {
    restore() {
      for (const k of keys) {
        const value = saved[k];
        if (value === undefined) delete process.env[k];
        else process.env[k] = value;
      }
    },
  };
}

/** A history record's INSERT as the deliveryHistory stream (NEW_IMAGE) carries it. */
function streamRecord(image: Record<string, unknown>, n: number): DynamoDBRecord {
  return {
    eventID: `bench-unit-cost-${Date.now()}-${n}`,
    eventName: 'INSERT',
    eventVersion: '1.1',
    eventSource: 'aws:dynamodb',
    awsRegion: 'us-east-1',
    dynamodb: {
      NewImage: image as NonNullable<DynamoDBRecord['dynamodb']>['NewImage'],
      SequenceNumber: String(1e15 + n),
      StreamViewType: 'NEW_IMAGE',
    },
  };
}

function scenario(
  name: string,
  run: {
    notifications: number;
    deliveries: number;
    attempts: number;
    use: UnitCostScenario['functions'];
    sqs: SqsMeter;
    kms: { decrypts: number; dataKeys: number };
    egressBytes: number;
    samples: string[];
  },
): UnitCostScenario {
  const per = (x: number) => x / run.deliveries;
  const fns = Object.values(run.use);
  const sum = (f: (u: FunctionUse) => number) => fns.reduce((s, u) => s + f(u), 0);
  const billed = (tally: Record<string, SqsTally>) =>
    Object.entries(tally)
      // The mapping's empty long polls are a fixed cost per queue and month, not per delivery.
      .filter(([name]) => name !== 'ReceiveMessage (empty)')
      .reduce((s, [, t]) => s + t.billed, 0);
  const invocations = sum((u) => u.invocations);
  // X-Ray: each function's invocations at the assumed steady rate share its reservoir.
  const traces = fns.reduce(
    (s, u) => s + u.invocations * sampledShare(per(u.invocations) * ASSUMED_DELIVERIES_PER_SECOND),
    0,
  );
  const units: UnitsPerDelivery = {
    sqsRequests: per(billed(run.sqs.service) + billed(run.sqs.esm)),
    lambdaInvocations: per(invocations),
    lambdaGbSeconds: per(sum((u) => u.gbSeconds)),
    dynamoWriteUnits: per(sum((u) => u.capacity.wcu)),
    dynamoReadUnits: per(sum((u) => u.capacity.rcu)),
    logBytes: per(sum((u) => u.logBytes) + invocations * PLATFORM_BYTES_PER_INVOCATION),
    xrayTraces: per(traces),
    kmsRequests: per(run.kms.decrypts + run.kms.dataKeys),
    egressBytes: per(run.egressBytes),
  };
  return {
    scenario: name,
    notifications: run.notifications,
    deliveries: run.deliveries,
    attempts: run.attempts,
    functions: run.use,
    sqs: { counted: run.sqs.service, eventSource: run.sqs.esm },
    kms: run.kms,
    egressBytes: run.egressBytes,
    logSamples: run.samples,
    units: Object.fromEntries(
      Object.entries(units).map(([k, v]) => [k, round(v, 6)]),
    ) as unknown as UnitsPerDelivery,
    cost: costPerMillion(units),
  };
}

/** The per-component tables, as printed after the summary. */
export function costTables(r: UnitCostResult): string {
  const out: string[] = [];
  for (const s of r.scenarios) {
    out.push(
      `\nFigure 19 — ${s.scenario}: ${s.deliveries} deliveries, ${s.attempts} attempts, ${s.notifications} notifications (1 KB) to one webhook`,
    );
    out.push(
      `${'component'.padEnd(26)} ${'units/delivery'.padStart(16)} ${'unit'.padEnd(12)} ${'$/M on-demand'.padStart(14)} ${'$/M provisioned'.padStart(16)}`,
    );
    for (const row of s.cost.rows)
      out.push(
        `${row.component.padEnd(26)} ${String(round(row.unitsPerDelivery, 4)).padStart(16)} ${row.unit.padEnd(12)} ${row.onDemand.toFixed(4).padStart(14)} ${row.provisioned.toFixed(4).padStart(16)}`,
      );
    out.push(
      `${'total'.padEnd(26)} ${''.padStart(16)} ${''.padEnd(12)} ${s.cost.totalOnDemand.toFixed(4).padStart(14)} ${s.cost.totalProvisioned.toFixed(4).padStart(16)}`,
    );
    const sqs = (t: Record<string, SqsTally>) =>
      Object.entries(t)
        .map(([k, v]) => `${k} ${v.calls}${v.billed !== v.calls ? ` (${v.billed} billed)` : ''}`)
        .join(', ');
    out.push(`  SQS counted (service clients): ${sqs(s.sqs.counted)}`);
    out.push(
      `  SQS on the event source's behalf (its receives and deletes; empty polls not priced): ${sqs(s.sqs.eventSource)}`,
    );
    for (const [name, u] of Object.entries(s.functions))
      out.push(
        `  ${name}: ${u.invocations} invocations, ${u.billedMs} billed ms at ${u.memoryMb} MB, ${round(u.capacity.wcu, 1)} WCU (${u.localGaps.addedWcu} added for ${u.localGaps.transactions} transactions, ${u.localGaps.failedConditions} failed conditions) / ${round(u.capacity.rcu, 1)} RCU, ${u.logBytes} log bytes (${u.logLines} lines, ${u.emfLines} EMF)`,
      );
    out.push(
      `  KMS: ${s.kms.decrypts} Decrypt + ${s.kms.dataKeys} GenerateDataKey (one container: SecretBox caches a data key per container and webhook); X-Ray assumed at ${r.assumptions.deliveriesPerSecondForXRay} deliveries/s; Lambda's START/END/REPORT lines estimated at ${r.assumptions.platformLogBytesPerInvocation} B an invocation`,
    );
  }
  return `${out.join('\n')}\n`;
}
