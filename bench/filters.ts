/**
 * Figure 14 — payload filters at fan-out (issue 26, ADR 0010).
 *
 * - Fan-out time per notification: the real `functions/consumers/fan-out.ts` handler (the
 *   notifications queue's consumer in the catalog) fans one notification out to 1,000 matching
 *   personal webhooks of one owner without filters, and to 1,000 of another owner with typical
 *   filters (all true for the notification, so both enqueue the same 1,000 deliveries), rounds
 *   interleaved (each round both, alternating which goes first) after warm-up rounds that
 *   compile the filters once; the figure is the median of the rounds' filtered / unfiltered
 *   ratios. A notification's fan-out is every
 *   step of it: the first step enqueues 1,000 deliveries (`fanOutChunk`) and sends a follow-up
 *   for the subscription keys left, which this process takes from a bench-only notifications
 *   queue and runs through the same handler; the time is the sum of the steps' handler times.
 * - One filter evaluation p50/p99: `filterDecision` (what fan-out calls per filtered webhook, with
 *   its compiled-filter cache warm) on the payload fan-out builds.
 *
 * It fails rather than report nothing: every notification must enqueue exactly its deliveries,
 * and a control owner whose filters are false for half of its webhooks must get exactly the
 * other half (so the filtered path did evaluate the filters from the subscription items). The
 * cel-spec pass rate beside it is `cel-conformance.ts`'s.
 */
import { randomBytes } from 'node:crypto';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { lambdaContext } from '../infra/local/lambda';
import { queueDef, queueEnvVar } from '../shared/catalog/queues';
import { drain } from './cost';
import { sqsEvent, sqsRecord } from './lib/cloud';
import { batchPut } from './lib/seed';
import { median, percentile, round } from './lib/stats';

const MATCH_TYPE = 'modelAccessRequested';
/** What fan-out time with filters may be, at most, over the time without. */
export const FILTER_RATIO_LIMIT = 1.3;

/** Typical filters, each true for the benchmark's notification. */
const FILTERS = [
  'metadata.notificationType == "modelAccessRequested" && metadata.modelId in [7, 8, 9]',
  'has(metadata.actionBy) && metadata.actionBy > 0',
  'text.contains("access") || metadata.projectName == "Sales"',
  '!(metadata.notificationType in ["userCreated", "tagCreated"]) && webhookName.startsWith("bench")',
];
/** Filters of the same kinds, each false for the notification (for the control owner). */
const FALSE_FILTERS = [
  'metadata.modelId in [1, 2, 3]',
  'has(metadata.dataSourceId) && metadata.dataSourceId == 42',
  'text.startsWith("urgent")',
  'webhookName.endsWith("never")',
];
/** The control owner's webhooks: half with FILTERS, half with FALSE_FILTERS. */
const CONTROL_WEBHOOKS = 40;
/** Evaluations timed for the p50/p99. */
const EVALUATIONS = 20_000;

interface Sample {
  ms: number;
  steps: number;
  deliveries: number;
}

export interface FilterFanOutResult {
  webhooks: number;
  rounds: number;
  /** Median handler time per notification (all its steps), without and with filters. */
  unfilteredMs: number;
  filteredMs: number;
  /** The median over the rounds of filtered / unfiltered within the round. */
  ratio: number;
  ratios: number[];
  samplesMs: { unfiltered: number[]; filtered: number[] };
  /** Handler invocations per notification (the first step and its follow-ups). */
  steps: number;
  /** Per notification, to the owner's own webhooks; `toGlobalWebhooks` were enqueued on top in each. */
  deliveries: {
    unfiltered: number;
    filtered: number;
    control: number;
    controlExpected: number;
    toGlobalWebhooks: number;
  };
  evaluation: { p50Us: number; p99Us: number; samples: number; filters: number };
  target: { ratioAtMost: number; met: boolean };
}

export async function filterFanOut(options: {
  sqs: SQSClient;
  /** The bench-only deliveries queue the fan-out handler sends to. */
  deliveriesUrl: string;
  /** A bench-only queue for the fan-out's follow-up messages (the cloud must not take them). */
  notificationsUrl: string;
  webhooks: number;
  /** Rounds of both paths before the measured ones. */
  warmUp: number;
  rounds: number;
}): Promise<FilterFanOutResult> {
  const { documentClient } = await import('../shared/store/clients');
  const { tableName } = await import('../shared/store/tables');
  const { webhookSubscriptionKeys } = await import('../shared/webhooks/store/subscriptions');
  const { filterDecision } = await import('../shared/webhooks/filter');
  const def = queueDef('notifications');
  const { handler } = (await import(`../${def.consumer.handler}`)) as {
    handler: (e: SQSEvent, c: ReturnType<typeof lambdaContext>) => Promise<SQSBatchResponse>;
  };

  // Ids far above what the counters hand out, owners that are not real principals.
  const plainOwner = 40_300_001;
  const filteredOwner = 40_300_002;
  const controlOwner = 40_300_003;
  const noWebhooksOwner = 40_300_004;
  const updatedAt = new Date().toISOString();
  const subscription = (id: number, createdBy: number, filter?: string) => {
    const webhook = { id, createdBy, global: false, notificationType: [MATCH_TYPE] };
    return webhookSubscriptionKeys(webhook).map((subscriptionKey) => ({
      table: tableName('webhookSubscriptions'),
      item: {
        subscriptionKey,
        webhookId: id,
        createdBy,
        global: false,
        // As the webhooks store writes a filtered webhook's items.
        ...(filter !== undefined ? { filter, updatedAt, webhookName: `bench filtered ${id}` } : {}),
      } as Record<string, unknown>,
    }));
  };
  await batchPut(documentClient, [
    ...Array.from({ length: options.webhooks }, (_, i) => subscription(60_000_000 + i, plainOwner)).flat(),
    ...Array.from({ length: options.webhooks }, (_, i) =>
      subscription(60_100_000 + i, filteredOwner, FILTERS[i % FILTERS.length]),
    ).flat(),
    ...Array.from({ length: CONTROL_WEBHOOKS }, (_, i) =>
      subscription(
        60_200_000 + i,
        controlOwner,
        i % 2 === 0 ? FILTERS[(i / 2) % FILTERS.length] : FALSE_FILTERS[((i - 1) / 2) % FALSE_FILTERS.length],
      ),
    ).flat(),
  ]);

  const text = 'a user requested access to Sales';
  const metadata = { actionBy: 40_200_000, modelId: 7, projectName: 'Sales' };
  /**
   * One notification's whole fan-out through the handler; throws unless it enqueues `expected`
   * deliveries to the recipient's webhooks plus `globalDeliveries` (checked when given).
   */
  let globalDeliveries = 0;
  const fanOut = async (recipient: number, expected?: number): Promise<Sample> => {
    let body = JSON.stringify({
      id: `bench-filter-${randomBytes(8).toString('hex')}`,
      notificationType: MATCH_TYPE,
      text,
      metadata,
      recipients: [recipient],
      timestamp: new Date().toISOString(),
    });
    let ms = 0;
    let steps = 0;
    for (;;) {
      const started = performance.now();
      const result = await handler(
        sqsEvent([sqsRecord(body)]),
        lambdaContext('bench-filter-fan-out', 30_000),
      );
      ms += performance.now() - started;
      steps++;
      if (result.batchItemFailures.length > 0) throw new Error('figure 14: fan-out failed the notification');
      const followUps = await drain(options.sqs, options.notificationsUrl);
      if (followUps.length > 1) throw new Error(`figure 14: a step sent ${followUps.length} follow-ups`);
      if (followUps[0] === undefined) break;
      body = followUps[0];
    }
    const deliveries = (await drain(options.sqs, options.deliveriesUrl)).length;
    if (expected !== undefined && deliveries !== expected + globalDeliveries)
      throw new Error(
        `figure 14: owner ${recipient}'s notification enqueued ${deliveries} deliveries, not ${expected} to its webhooks + ${globalDeliveries} to global ones`,
      );
    return { ms, steps, deliveries };
  };

  // Follow-ups go to the bench-only queue for the figure's length, not to the cloud's consumer.
  const notificationsVar = queueEnvVar('notifications');
  const cloudNotifications = process.env[notificationsVar];
  process.env[notificationsVar] = options.notificationsUrl;
  const plain: Sample[] = [];
  const filtered: Sample[] = [];
  let control: Sample;
  try {
    await drain(options.sqs, options.deliveriesUrl);
    // Global webhooks other figures left in the cloud receive every notification of their types
    // (in a full run, figure 12's); a recipient without webhooks of its own counts them.
    globalDeliveries = (await fanOut(noWebhooksOwner)).deliveries;
    // The filters are evaluated: the control owner gets exactly the webhooks whose filter is true.
    control = await fanOut(controlOwner, CONTROL_WEBHOOKS / 2);
    // Warm-up: both paths (the filtered one compiles its filters here, once per version; the
    // first rounds of either are slower while this process and the emulators warm up).
    for (let round = 0; round < options.warmUp; round++) {
      await fanOut(plainOwner, options.webhooks);
      await fanOut(filteredOwner, options.webhooks);
    }
    for (let round = 0; round < options.rounds; round++) {
      // Alternate which goes first, so neither always runs on a warmer process.
      if (round % 2 === 0) {
        plain.push(await fanOut(plainOwner, options.webhooks));
        filtered.push(await fanOut(filteredOwner, options.webhooks));
      } else {
        filtered.push(await fanOut(filteredOwner, options.webhooks));
        plain.push(await fanOut(plainOwner, options.webhooks));
      }
    }
  } finally {
    process.env[notificationsVar] = cloudNotifications;
  }

  // One evaluation per filtered webhook, as fan-out makes it (the compiled filters cached).
  const payload = {
    text,
    metadata: { ...metadata, notificationType: MATCH_TYPE },
    webhookId: 0,
    webhookName: '',
  };
  const timings: number[] = [];
  for (let i = 0; i < EVALUATIONS; i++) {
    const id = 60_100_000 + (i % options.webhooks);
    const filter = FILTERS[(id - 60_100_000) % FILTERS.length] as string;
    payload.webhookId = id;
    payload.webhookName = `bench filtered ${id}`;
    const started = performance.now();
    const decision = filterDecision({ id, updatedAt, filter }, payload);
    timings.push((performance.now() - started) * 1000);
    if (!decision.matched) throw new Error(`figure 14: a benchmark filter did not match: ${filter}`);
  }

  // Each round's two fan-outs ran back to back: their ratio cancels what drifts between rounds
  // (a shared machine's load, the emulators' warm-up), and the figure is the median of them.
  const ratios = plain.map((p, i) => (filtered[i] as Sample).ms / p.ms);
  return {
    webhooks: options.webhooks,
    rounds: options.rounds,
    unfilteredMs: round(median(plain.map((s) => s.ms)), 1),
    filteredMs: round(median(filtered.map((s) => s.ms)), 1),
    ratio: round(median(ratios)),
    ratios: ratios.map((r) => round(r)),
    samplesMs: {
      unfiltered: plain.map((s) => round(s.ms, 1)),
      filtered: filtered.map((s) => round(s.ms, 1)),
    },
    steps: median(plain.map((s) => s.steps)),
    deliveries: {
      unfiltered: median(plain.map((s) => s.deliveries)) - globalDeliveries,
      filtered: median(filtered.map((s) => s.deliveries)) - globalDeliveries,
      control: control.deliveries - globalDeliveries,
      controlExpected: CONTROL_WEBHOOKS / 2,
      toGlobalWebhooks: globalDeliveries,
    },
    evaluation: {
      p50Us: round(percentile(timings, 50), 1),
      p99Us: round(percentile(timings, 99), 1),
      samples: timings.length,
      filters: FILTERS.length,
    },
    target: { ratioAtMost: FILTER_RATIO_LIMIT, met: round(median(ratios)) <= FILTER_RATIO_LIMIT },
  };
}
