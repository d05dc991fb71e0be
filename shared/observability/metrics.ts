/**
 * Emitting the cataloged metrics (`shared/catalog/metrics.ts`) with Powertools Metrics: each
 * call writes one CloudWatch embedded-metric-format line to stdout, which CloudWatch Logs turns
 * into metrics (no PutMetricData call, no extra latency or permission; ADR 0011). Locally the
 * same lines are in the local cloud's output.
 *
 * Each call adds and publishes synchronously, so concurrent records of one batch never mix
 * their dimensions in the shared instance.
 */
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

/**
 * One EMF document: the given metrics under their cataloged dimension sets. Every metric of a
 * call must have the same dimension sets (they share the document's `Dimensions`).
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
  const m = emitter();
  // One set each, the defaults-only set included (`addDimensions({})`): Powertools publishes the
  // defaults alone only when nothing else is added.
  for (const set of sets)
    m.addDimensions(Object.fromEntries(set.map((k) => [k, dimensionValue(dimensions, k)])));
  for (const name of names) m.addMetric(name, catalog[name].unit, values[name] ?? 0);
  m.publishStoredMetrics();
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
