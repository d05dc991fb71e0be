/**
 * Figures 8 and 9 — what the webhook operations of issue 22 cost the pipeline.
 *
 * 8. Health tracking. (a) Write units per delivery attempt through the real deliveries consumer,
 *    with the failure-streak bookkeeping off and on, for attempts that succeed and attempts that
 *    fail: every write command of the shared DynamoDB client asks for its consumed capacity
 *    (`ReturnConsumedCapacity: TOTAL`, added by a middleware) and the units are summed. Target:
 *    no rise for successes. (b) Deliveries per second with 30 % of the receivers failing, with the
 *    bookkeeping off and on, interleaved. Target: on / off ≥ 0.9.
 * 9. Recover throughput: a recover job of failed deliveries (its steps and re-sends driven here
 *    through bench-only queues) against the same number of plain deliveries through the consumer.
 * 11. Throttle: the rate a webhook limited to 5 deliveries/s receives, and the pace of an
 *    unthrottled webhook in the same batches against the same deliveries alone.
 */
import { randomBytes } from 'node:crypto';
import {
  CreateQueueCommand,
  DeleteMessageBatchCommand,
  ReceiveMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { lambdaContext } from '../infra/local/lambda';
import { localQueueUrl } from '../infra/local/sqs';
import { queueEnvVar } from '../shared/catalog/queues';
import { deliverHandler } from './delivery';
import { CapacityMeter } from './lib/capacity';
import { sqsEvent, sqsRecord } from './lib/cloud';
import { type Receiver, startReceiver } from './lib/receiver';
import { round, runPool } from './lib/stats';

const NOTIFICATION = 'modelAccessRequested';
const BATCH = 10;
const INVOCATIONS = 4;
/** An attempt past the schedule: a failure is dead-lettered, never re-queued by visibility. */
const LAST_ATTEMPT = 8;

interface Hook {
  id: number;
  ownerId: number;
}

async function makeHooks(
  receiver: Receiver,
  prefix: string,
  paths: string[],
  extra: { maxDeliveriesPerSecond?: number } = {},
): Promise<Hook[]> {
  const { createPrincipalWithKey } = await import('../shared/auth/keys');
  const { createWebhooks } = await import('../shared/webhooks/api/webhooks');
  const hooks: Hook[] = [];
  for (const path of paths) {
    const owner = await createPrincipalWithKey(`${prefix}${path}`, []);
    const out = await createWebhooks(
      owner,
      [
        {
          url: `${receiver.url}${path}`,
          name: `bench ${path}`,
          global: false,
          notificationType: [NOTIFICATION],
          actionType: 'triggered',
          secret: `whsec_${randomBytes(32).toString('base64')}`,
          ...extra,
        },
      ],
      'http://localhost',
    );
    const created = out.createdWebhooks[0];
    if (!created) throw new Error(`webhook refused: ${JSON.stringify(out.errors)}`);
    hooks.push({ id: created.id, ownerId: owner.userId });
  }
  return hooks;
}

function body(hook: Hook, n: number): string {
  return JSON.stringify({
    v: 1,
    deliveryId: `msg_${randomBytes(16).toString('hex')}_${hook.id}`,
    webhookId: hook.id,
    activityId: n,
    notificationType: NOTIFICATION,
    text: `user ${hook.ownerId} requested access to data source ${n}`,
    metadata: { modelId: n, targetUser: hook.ownerId },
  });
}

const setTracking = (on: boolean) => {
  process.env.WEBHOOK_HEALTH_TRACKING = String(on);
};

export interface HealthResult {
  attempts: number;
  wcuPerSuccess: { off: number; on: number };
  wcuPerFailure: { off: number; on: number };
  deliveriesPerSecond: { off: number; on: number };
  ratio: number;
  target: { successWcuNotHigher: boolean; ratioAtLeast: number; met: boolean };
}

export async function healthCost(options: { attempts: number; deliveries: number }): Promise<HealthResult> {
  const receiver = await startReceiver();
  try {
    const handler = await deliverHandler();
    const { dynamodb } = await import('../shared/store/clients');
    const meter = new CapacityMeter();
    meter.install(dynamodb);
    const good = await makeHooks(
      receiver,
      'bench-health',
      Array.from({ length: 14 }, (_, i) => `/h/ok${i}`),
    );
    const bad = await makeHooks(
      receiver,
      'bench-health',
      Array.from({ length: 6 }, (_, i) => `/h/bad${i}`),
    );
    for (let i = 0; i < 6; i++) receiver.fail.add(`/h/bad${i}`);
    let counter = 0;
    const run = async (hooks: Hook[], count: number) => {
      const started = performance.now();
      await runPool(Math.ceil(count / BATCH), INVOCATIONS, async () => {
        const records = Array.from({ length: BATCH }, () => {
          const n = counter++;
          return sqsRecord(body(hooks[n % hooks.length] as Hook, n), { receiveCount: LAST_ATTEMPT });
        });
        await handler(sqsEvent(records), lambdaContext('bench-health', 60_000));
      });
      return { count: Math.ceil(count / BATCH) * BATCH, ms: performance.now() - started };
    };
    const perAttempt = async (hooks: Hook[], on: boolean) => {
      setTracking(on);
      const { result, capacity } = await meter.measure(() => run(hooks, options.attempts));
      if (capacity.writes === 0) throw new Error('no write was metered: the meter sees no command');
      return round(capacity.wcu / result.count, 3);
    };
    // Warm-up, and every failing webhook's streak begun (its one class-change write).
    setTracking(true);
    await run([...good, ...bad], BATCH * INVOCATIONS * 2);
    const wcuPerSuccess = { off: await perAttempt(good, false), on: await perAttempt(good, true) };
    const wcuPerFailure = { off: await perAttempt(bad, false), on: await perAttempt(bad, true) };
    // 30 % of the receivers fail: the deliveries round-robin over 14 good and 6 failing webhooks.
    const mixed = [...good, ...bad];
    const totals = { off: { count: 0, ms: 0 }, on: { count: 0, ms: 0 } };
    for (let roundNo = 0; roundNo < 2; roundNo++) {
      for (const on of [false, true]) {
        setTracking(on);
        const r = await run(mixed, Math.ceil(options.deliveries / 2));
        const key = on ? 'on' : 'off';
        totals[key].count += r.count;
        totals[key].ms += r.ms;
      }
    }
    setTracking(true);
    const deliveriesPerSecond = {
      off: round((totals.off.count / totals.off.ms) * 1000, 1),
      on: round((totals.on.count / totals.on.ms) * 1000, 1),
    };
    const ratio = round(deliveriesPerSecond.on / deliveriesPerSecond.off);
    const successWcuNotHigher = wcuPerSuccess.on <= wcuPerSuccess.off;
    return {
      attempts: options.attempts,
      wcuPerSuccess,
      wcuPerFailure,
      deliveriesPerSecond,
      ratio,
      target: { successWcuNotHigher, ratioAtLeast: 0.9, met: successWcuNotHigher && ratio >= 0.9 },
    };
  } finally {
    setTracking(true);
    await receiver.close();
  }
}

export interface RecoverResult {
  deliveries: number;
  plainPerSecond: number;
  recoverPerSecond: number;
  ratio: number;
  resent: number;
  met: boolean;
}

/** Receives from a bench queue and hands each batch to `process`; stops when `done()` says so. */
async function drain(
  sqs: SQSClient,
  url: string,
  process: (event: SQSEvent) => Promise<SQSBatchResponse | undefined>,
  done: () => boolean,
): Promise<void> {
  while (!done()) {
    const out = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: url,
        MaxNumberOfMessages: BATCH,
        WaitTimeSeconds: 1,
        MessageSystemAttributeNames: ['All'],
      }),
    );
    const messages = out.Messages ?? [];
    if (messages.length === 0) continue;
    const event = sqsEvent(
      messages.map((m) => sqsRecord(m.Body ?? '', { receiptHandle: m.ReceiptHandle ?? '' })),
    );
    event.Records.forEach((r, i) => {
      r.messageId = messages[i]?.MessageId ?? r.messageId;
    });
    const failed = new Set(((await process(event))?.batchItemFailures ?? []).map((f) => f.itemIdentifier));
    const doneMessages = messages.filter((m) => !failed.has(m.MessageId ?? ''));
    if (doneMessages.length > 0)
      await sqs.send(
        new DeleteMessageBatchCommand({
          QueueUrl: url,
          Entries: doneMessages.map((m, j) => ({ Id: String(j), ReceiptHandle: m.ReceiptHandle })),
        }),
      );
  }
}

export async function recoverThroughput(options: {
  sqs: SQSClient;
  sqsEndpoint: string;
  deliveriesUrl: string;
  deliveries: number;
}): Promise<RecoverResult> {
  const { sqs } = options;
  const recoveriesUrl = localQueueUrl(
    options.sqsEndpoint,
    (
      await sqs.send(
        new CreateQueueCommand({ QueueName: `causeway-bench-recoveries-${randomBytes(4).toString('hex')}` }),
      )
    ).QueueUrl as string,
  );
  process.env[queueEnvVar('recoveries')] = recoveriesUrl;
  const receiver = await startReceiver();
  try {
    const handler = await deliverHandler();
    const [hook] = await makeHooks(receiver, 'bench-recover', ['/r/plain']);
    const [target] = await makeHooks(receiver, 'bench-recover', ['/r/recovered']);
    if (!hook || !target) throw new Error('no bench webhooks');
    // Plain deliveries: the same count through the consumer, in batches of 10, 4 at a time.
    let counter = 0;
    const plainStarted = performance.now();
    await runPool(Math.ceil(options.deliveries / BATCH), INVOCATIONS, async () => {
      const records = Array.from({ length: BATCH }, () => sqsRecord(body(hook, counter++)));
      await handler(sqsEvent(records), lambdaContext('bench-plain', 60_000));
    });
    const plainPerSecond =
      (Math.ceil(options.deliveries / BATCH) * BATCH * 1000) / (performance.now() - plainStarted);

    // Failed deliveries of the target in a window, as the pipeline records them.
    const { writeHistoryRecord } = await import('../shared/webhooks/store/history');
    const since = new Date(Date.now() - 1000).toISOString();
    await runPool(options.deliveries, 32, async (n) => {
      await writeHistoryRecord({
        request: { text: `failed ${n}`, metadata: {}, webhookId: target.id, webhookName: 'bench' },
        response: { body: '' },
        statusCode: 500,
        durationMs: 1,
        notificationType: NOTIFICATION,
        webhooksActivityId: n,
        webhooksId: target.id,
        url: `${receiver.url}/r/recovered`,
        name: 'bench',
        actionType: 'triggered',
        createdBy: target.ownerId,
        deliveryId: `msg_${randomBytes(16).toString('hex')}_${target.id}`,
        attempt: 1,
        global: false,
      });
    });
    const { startRecover } = await import('../shared/webhooks/api/recover');
    const { getJob } = await import('../shared/webhooks/store/jobs');
    const { handler: recoverHandler } = await import('../functions/consumers/recover');
    const owner = { userId: target.ownerId, name: 'bench', permissions: [] };
    const started = performance.now();
    const answer = await startRecover(
      owner,
      target.id,
      { since: Date.parse(since), onlyFailed: true },
      false,
    );
    const jobId = (answer.body as { jobId: string }).jobId;
    let finished = false;
    const watch = (async () => {
      while (!finished) {
        const job = await getJob(jobId, true);
        if (job?.status === 'completed' && job.resent >= job.enqueued) finished = true;
        else await new Promise((r) => setTimeout(r, 100));
      }
    })();
    const steps = drain(
      sqs,
      recoveriesUrl,
      (event) => recoverHandler(event, lambdaContext('bench-recover', 60_000)),
      () => finished,
    );
    const sends = Array.from({ length: INVOCATIONS }, () =>
      drain(
        sqs,
        options.deliveriesUrl,
        (event) => handler(event, lambdaContext('bench-resend', 60_000)),
        () => finished,
      ),
    );
    await Promise.all([watch, steps, ...sends]);
    const recoverMs = performance.now() - started;
    const job = await getJob(jobId, true);
    const resent = job?.resent ?? 0;
    const recoverPerSecond = (resent * 1000) / recoverMs;
    return {
      deliveries: options.deliveries,
      plainPerSecond: round(plainPerSecond, 1),
      recoverPerSecond: round(recoverPerSecond, 1),
      ratio: round(recoverPerSecond / plainPerSecond),
      resent,
      met: resent === options.deliveries,
    };
  } finally {
    await receiver.close();
  }
}

export interface ThrottleResult {
  rate: number;
  throttled: number;
  free: number;
  throttledPerSecond: number;
  freePerSecond: { alone: number; mixed: number };
  ratio: number;
  target: { withinTenPercent: boolean; ratioAtLeast: number; met: boolean };
}

/**
 * Arrivals per second: from `started` to the last arrival, or without it between the first and
 * the last arrival (one interval fewer than arrivals).
 */
function ratePer(times: readonly number[], started?: number): number {
  const last = times.at(-1);
  const first = times[0];
  if (last === undefined || first === undefined) return 0;
  return started === undefined
    ? ((times.length - 1) * 1000) / Math.max(1, last - first)
    : (times.length * 1000) / Math.max(1, last - started);
}

/**
 * Figure 11: a webhook throttled at `rate` deliveries/s and an unthrottled one in the same batches
 * of the real deliveries consumer (8 unthrottled and 2 throttled records a batch); the throttled
 * deliveries a consumer sends again for their slots are drained from the bench deliveries queue
 * by 4 more consumers. Baseline: the same batches with the 2 records for another unthrottled
 * webhook instead, interleaved (2 rounds).
 */
export async function throttleCost(options: {
  sqs: SQSClient;
  deliveriesUrl: string;
  rate: number;
  free: number;
}): Promise<ThrottleResult> {
  const receiver = await startReceiver();
  try {
    const handler = await deliverHandler();
    const [free, other] = await makeHooks(receiver, 'bench-throttle', ['/t/free', '/t/other']);
    const [throttled] = await makeHooks(receiver, 'bench-throttle', ['/t/throttled'], {
      maxDeliveriesPerSecond: options.rate,
    });
    if (!free || !other || !throttled) throw new Error('no bench webhooks');
    const batches = Math.ceil(options.free / 8);
    const arrivals = (path: string, from: number) => (receiver.times.get(path) ?? []).slice(from);
    let counter = 0;
    const alone = async () => {
      const from = receiver.times.get('/t/free')?.length ?? 0;
      const started = Date.now();
      await runPool(batches, INVOCATIONS, async () => {
        const records = [
          ...Array.from({ length: 8 }, () => sqsRecord(body(free, counter++))),
          ...Array.from({ length: 2 }, () => sqsRecord(body(other, counter++))),
        ];
        await handler(sqsEvent(records), lambdaContext('bench-throttle', 60_000));
      });
      return ratePer(arrivals('/t/free', from), started);
    };
    const mixed = async () => {
      const fromFree = receiver.times.get('/t/free')?.length ?? 0;
      const fromThrottled = receiver.times.get('/t/throttled')?.length ?? 0;
      const started = Date.now();
      const done = () => arrivals('/t/throttled', fromThrottled).length >= batches * 2;
      const later = Array.from({ length: INVOCATIONS }, () =>
        drain(
          options.sqs,
          options.deliveriesUrl,
          (event) => handler(event, lambdaContext('bench-throttle-later', 60_000)),
          done,
        ),
      );
      await runPool(batches, INVOCATIONS, async () => {
        const records = [
          ...Array.from({ length: 8 }, () => sqsRecord(body(free, counter++))),
          ...Array.from({ length: 2 }, () => sqsRecord(body(throttled, counter++))),
        ];
        await handler(sqsEvent(records), lambdaContext('bench-throttle', 60_000));
      });
      const freeRate = ratePer(arrivals('/t/free', fromFree), started);
      await Promise.all(later);
      return { freeRate, throttledRate: ratePer(arrivals('/t/throttled', fromThrottled)) };
    };
    const totals = { alone: [] as number[], mixed: [] as number[], throttled: [] as number[] };
    for (let roundNo = 0; roundNo < 2; roundNo++) {
      totals.alone.push(await alone());
      const m = await mixed();
      totals.mixed.push(m.freeRate);
      totals.throttled.push(m.throttledRate);
    }
    const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
    const throttledPerSecond = round(mean(totals.throttled), 2);
    const freePerSecond = { alone: round(mean(totals.alone), 1), mixed: round(mean(totals.mixed), 1) };
    const ratio = round(freePerSecond.mixed / freePerSecond.alone);
    const withinTenPercent = Math.abs(throttledPerSecond - options.rate) <= options.rate * 0.1;
    return {
      rate: options.rate,
      throttled: batches * 2,
      free: batches * 8,
      throttledPerSecond,
      freePerSecond,
      ratio,
      target: { withinTenPercent, ratioAtLeast: 0.9, met: withinTenPercent && ratio >= 0.9 },
    };
  } finally {
    await receiver.close();
  }
}
