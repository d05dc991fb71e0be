/**
 * Figure 14 — payload filters at fan-out (issue 26, ADR 0010). The real
 * `functions/consumers/fan-out.ts` handler fans one notification out to 1,000 matching personal
 * webhooks of one owner without filters, and to 1,000 of another owner with typical filters (all
 * true for the notification, so both enqueue the same 1,000 deliveries), rounds interleaved after
 * a warm-up that compiles the filters once. Beside it: one filter evaluation's p50/p99 (the
 * filter module's `evaluateFilter` on the payload fan-out builds), and the cel-spec conformance
 * pass rate of the library for the allowed subset is `npm run bench:cel`'s (ADR 0010).
 */
import { randomBytes } from 'node:crypto';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { lambdaContext } from '../infra/local/lambda';
import { queues } from '../shared/catalog/queues';
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

interface FilterFanOutResult {
  webhooks: number;
  rounds: number;
  unfilteredMs: number;
  filteredMs: number;
  ratio: number;
  deliveries: { unfiltered: number; filtered: number };
  evaluation: { p50Us: number; p99Us: number; samples: number };
  target: { ratioAtMost: number; met: boolean };
}

export async function filterFanOut(options: {
  sqs: SQSClient;
  queueUrl: string;
  webhooks: number;
  rounds: number;
}): Promise<FilterFanOutResult> {
  const { documentClient } = await import('../shared/store/clients');
  const { tableName } = await import('../shared/store/tables');
  const { webhookSubscriptionKeys } = await import('../shared/webhooks/store/subscriptions');
  const { compileFilter, evaluateFilter } = await import('../shared/webhooks/filter');
  const def = queues.find((q) => q.name === 'notifications');
  if (!def) throw new Error('no notifications queue');
  const { handler } = (await import(`../${def.consumer.handler}`)) as {
    handler: (e: SQSEvent, c: ReturnType<typeof lambdaContext>) => Promise<SQSBatchResponse>;
  };

  // Ids far above what the counters hand out, owners that are not real principals.
  const plainOwner = 40_300_001;
  const filteredOwner = 40_300_002;
  const now = new Date().toISOString();
  const rows = Array.from({ length: options.webhooks * 2 }, (_, i) => {
    const filtered = i % 2 === 1;
    const webhook = {
      id: 60_000_000 + i,
      createdBy: filtered ? filteredOwner : plainOwner,
      global: false,
      notificationType: [MATCH_TYPE],
    };
    return webhookSubscriptionKeys(webhook).map((subscriptionKey) => ({
      table: tableName('webhookSubscriptions'),
      item: {
        subscriptionKey,
        webhookId: webhook.id,
        createdBy: webhook.createdBy,
        global: false,
        // As the webhooks store writes a filtered webhook's items.
        ...(filtered
          ? { filter: FILTERS[i % FILTERS.length], updatedAt: now, webhookName: `bench filtered ${i}` }
          : {}),
      } as Record<string, unknown>,
    }));
  }).flat();
  await batchPut(documentClient, rows);

  const message = (recipient: number) => ({
    id: `bench-filter-${randomBytes(8).toString('hex')}`,
    notificationType: MATCH_TYPE,
    text: 'a user requested access to Sales',
    metadata: { actionBy: 40_200_000, modelId: 7, projectName: 'Sales' },
    recipients: [recipient],
    timestamp: new Date().toISOString(),
  });
  const fanOut = async (recipient: number): Promise<{ ms: number; deliveries: number }> => {
    const record = sqsRecord(JSON.stringify(message(recipient)));
    const started = performance.now();
    const result = await handler(sqsEvent([record]), lambdaContext('bench-filter-fan-out', 30_000));
    const ms = performance.now() - started;
    if (result.batchItemFailures.length > 0) throw new Error('fan-out failed the notification');
    return { ms, deliveries: (await drain(options.sqs, options.queueUrl)).length };
  };

  await drain(options.sqs, options.queueUrl);
  // Warm-up: both paths once (the filtered one compiles its filters here, once per version).
  await fanOut(plainOwner);
  await fanOut(filteredOwner);
  const plain: { ms: number; deliveries: number }[] = [];
  const filtered: { ms: number; deliveries: number }[] = [];
  for (let round = 0; round < options.rounds; round++) {
    // Alternate which goes first, so neither always runs on a warmer process.
    if (round % 2 === 0) {
      plain.push(await fanOut(plainOwner));
      filtered.push(await fanOut(filteredOwner));
    } else {
      filtered.push(await fanOut(filteredOwner));
      plain.push(await fanOut(plainOwner));
    }
  }

  // One evaluation, as fan-out makes it.
  const payload = {
    text: 'a user requested access to Sales',
    metadata: { actionBy: 40_200_000, modelId: 7, projectName: 'Sales', notificationType: MATCH_TYPE },
    webhookId: 60_000_001,
    webhookName: 'bench filtered 1',
  };
  const compiled = FILTERS.map((source) => compileFilter(source));
  const timings: number[] = [];
  for (let i = 0; i < 20_000; i++) {
    const filter = compiled[i % compiled.length] as (typeof compiled)[number];
    const started = performance.now();
    const decision = evaluateFilter(filter, payload);
    timings.push((performance.now() - started) * 1000);
    if (!decision.matched) throw new Error(`a benchmark filter did not match: ${filter.source}`);
  }

  const unfilteredMs = median(plain.map((s) => s.ms));
  const filteredMs = median(filtered.map((s) => s.ms));
  const ratio = round(filteredMs / unfilteredMs);
  const deliveries = {
    unfiltered: median(plain.map((s) => s.deliveries)),
    filtered: median(filtered.map((s) => s.deliveries)),
  };
  return {
    webhooks: options.webhooks,
    rounds: options.rounds,
    unfilteredMs: round(unfilteredMs, 1),
    filteredMs: round(filteredMs, 1),
    ratio,
    deliveries,
    evaluation: {
      p50Us: round(percentile(timings, 50), 1),
      p99Us: round(percentile(timings, 99), 1),
      samples: timings.length,
    },
    target: {
      ratioAtMost: FILTER_RATIO_LIMIT,
      met:
        ratio <= FILTER_RATIO_LIMIT &&
        deliveries.unfiltered === options.webhooks &&
        deliveries.filtered === options.webhooks,
    },
  };
}
