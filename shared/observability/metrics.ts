/**
 * Emitting the cataloged metrics (`shared/catalog/metrics.ts`) with Powertools Metrics: each
 * document is one CloudWatch embedded-metric-format line on stdout, which CloudWatch Logs turns
 * into metrics (no PutMetricData call, no extra latency or permission; ADR 0011). Locally the
 * same lines are in the local cloud's output.
 *
 * Outside an invocation scope each call adds and publishes synchronously, so concurrent callers
 * never mix their dimensions in the shared instance. Inside `metricsPerInvocation` (the queue
 * consumer edge runs every batch in one) the values wait and are written when the scope ends,
 * thrown or not: one document per group of metrics and dimension values, each metric's values an
 * array, which CloudWatch takes as that many samples — sums, averages and percentiles are those
 * of one document per call, at a fraction of the log bytes (issue 42, ADR 0023).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { Metrics } from '@aws-lambda-powertools/metrics';
import {
  type AuthDenialReason,
  metrics as catalog,
  type DeliveryOutcome,
  type LifecycleOutcome,
  METRICS_NAMESPACE,
  METRICS_SERVICE,
  type MetricName,
} from '../catalog/metrics';
import { optionalEnv } from '../config/env';

let instance: Metrics | undefined;

/** Built on first use, after the runtime (or the local cloud) has set the environment. */
function emitter(): Metrics {
  instance ??= new Metrics({
    namespace: METRICS_NAMESPACE,
    serviceName: METRICS_SERVICE,
    defaultDimensions: { stage: optionalEnv('CAUSEWAY_STAGE') ?? 'unknown' },
  });
  return instance;
}

/** Values of the metrics of one call site, under one set of dimension values, in call order. */
interface Group {
  readonly names: readonly MetricName[];
  readonly dimensions: Readonly<Record<string, string>>;
  readonly values: ReadonlyMap<MetricName, number[]>;
}

/** The groups recorded in the current invocation scope, by metric names and dimension values. */
const invocation = new AsyncLocalStorage<Map<string, Group>>();

/**
 * EMF takes at most 100 values per metric in a document, and Powertools publishes a metric on its
 * own when its array reaches 100 (the rest of the document would lose its dimensions): 99 a document.
 */
const VALUES_PER_DOCUMENT = 99;

/**
 * Runs `run` with the metrics it records kept back, and writes them when it ends — also when it
 * throws, so nothing recorded is lost.
 */
export async function metricsPerInvocation<T>(run: () => Promise<T>): Promise<T> {
  const groups = new Map<string, Group>();
  try {
    return await invocation.run(groups, run);
  } finally {
    for (const group of groups.values()) write(group);
  }
}

/**
 * Records the given metrics under their cataloged dimension sets: written at once as one EMF
 * document, or kept for the invocation scope's end. Every metric of a call must have the same
 * dimension sets (they share a document's `Dimensions`).
 */
function publish(values: Partial<Record<MetricName, number>>, dimensions: Record<string, string> = {}): void {
  const names = Object.keys(values) as MetricName[];
  const first = names[0];
  if (!first) return;
  const sets = catalog[first].dimensionSets;
  for (const name of names) {
    if (JSON.stringify(catalog[name].dimensionSets) !== JSON.stringify(sets))
      throw new Error(`metrics ${first} and ${name} have different dimension sets; publish them apart`);
  }
  const used = Object.fromEntries([...new Set(sets.flat())].map((k) => [k, dimensionValue(dimensions, k)]));
  const groups = invocation.getStore();
  if (!groups) {
    write({ names, dimensions: used, values: new Map(names.map((name) => [name, [values[name] ?? 0]])) });
    return;
  }
  const id = JSON.stringify([names, used]);
  let group = groups.get(id);
  if (!group) {
    group = { names, dimensions: used, values: new Map(names.map((name) => [name, []])) };
    groups.set(id, group);
  }
  for (const name of names) group.values.get(name)?.push(values[name] ?? 0);
}

/** A group's values as EMF documents: one per VALUES_PER_DOCUMENT values of each metric. */
function write({ names, dimensions, values }: Group): void {
  const sets = catalog[names[0] as MetricName].dimensionSets;
  const count = values.get(names[0] as MetricName)?.length ?? 0;
  const m = emitter();
  for (let from = 0; from < count; from += VALUES_PER_DOCUMENT) {
    // One set each, the defaults-only set included (`addDimensions({})`): Powertools publishes the
    // defaults alone only when nothing else is added.
    for (const set of sets) m.addDimensions(Object.fromEntries(set.map((k) => [k, dimensions[k] as string])));
    for (const name of names)
      for (const value of values.get(name)?.slice(from, from + VALUES_PER_DOCUMENT) ?? [])
        m.addMetric(name, catalog[name].unit, value);
    m.publishStoredMetrics();
  }
}

function dimensionValue(dimensions: Record<string, string>, key: string): string {
  const value = dimensions[key];
  if (!value) throw new Error(`metric dimension ${key} has no value`);
  return value;
}

/** One POST of a delivery; `timeToFirstAttemptMs` only on a first attempt whose enqueue time is known. */
export function recordDeliveryAttempt(attempt: {
  outcome: DeliveryOutcome;
  latencyMs: number;
  timeToFirstAttemptMs?: number;
}): void {
  publish(
    {
      DeliveryAttempts: 1,
      DeliveryFailures: attempt.outcome === 'delivered' ? 0 : 1,
      DeliveryLatency: Math.max(0, attempt.latencyMs),
    },
    { outcome: attempt.outcome },
  );
  if (attempt.timeToFirstAttemptMs !== undefined)
    publish({ TimeToFirstAttempt: Math.max(0, attempt.timeToFirstAttemptMs) });
}

/** Deliveries enqueued for one notification. */
export function recordFanOut(width: number): void {
  publish({ FanOutWidth: width });
}

/** Filter evaluations at fan-out that failed (each a non-match). */
export function recordFilterErrors(count: number): void {
  publish({ FilterErrors: count });
}

/** The recorded end of an integration lifecycle operation. */
export function recordLifecycleOutcome(outcome: {
  integrationType: string;
  operation: string;
  outcome: LifecycleOutcome;
  status: string;
}): void {
  publish({ LifecycleOutcomes: 1 }, outcome);
}

/** The authorizer found no valid key (the route answers 401). */
export function recordAuthDenial(reason: AuthDenialReason): void {
  publish({ AuthDenials: 1 }, { reason });
}
