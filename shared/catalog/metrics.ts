/**
 * The metric catalog: every custom metric the service emits (CloudWatch embedded metric
 * format, through `shared/observability/metrics.ts`), its unit and the dimension sets it is
 * published under. The CDK dashboard and alarms (`infra/constructs/observability.ts`) build
 * their metrics from these same names, and `docs/operations.md` documents each one.
 *
 * Every metric also carries the default dimensions `service` (always `causeway`) and `stage`.
 *
 * Keep this file free of runtime imports: Lambda bundles import it.
 */

export const METRICS_NAMESPACE = 'Causeway';
export const METRICS_SERVICE = 'causeway';

/** The class of one delivery attempt's result (the `outcome` dimension of the delivery metrics). */
export const DELIVERY_OUTCOMES = [
  'delivered',
  'timeout',
  'refused',
  'ssrfBlocked',
  'network',
  'redirect',
  'http4xx',
  'http5xx',
] as const;
export type DeliveryOutcome = (typeof DELIVERY_OUTCOMES)[number];

/** How a lifecycle operation ended (the `outcome` dimension of `LifecycleOutcomes`). */
export const LIFECYCLE_OUTCOMES = ['succeeded', 'failed'] as const;
export type LifecycleOutcome = (typeof LIFECYCLE_OUTCOMES)[number];

/** Why the authorizer refused a key (the `reason` dimension of `AuthDenials`). */
export const AUTH_DENIAL_REASONS = ['missing', 'unknown', 'revoked'] as const;
export type AuthDenialReason = (typeof AUTH_DENIAL_REASONS)[number];

type MetricUnitName = 'Count' | 'Milliseconds';

export interface MetricDef {
  readonly unit: MetricUnitName;
  /** Dimension sets besides the defaults (`[]` = the defaults only). */
  readonly dimensionSets: readonly (readonly string[])[];
}

const DELIVERY_SETS = [[], ['outcome']] as const;

export const metrics = {
  /** One per POST of a webhook delivery (first attempts and retries). */
  DeliveryAttempts: {
    unit: 'Count',
    dimensionSets: DELIVERY_SETS,
  },
  /** 1 for an attempt that was not a 2xx, else 0 (its Average is the failure rate). */
  DeliveryFailures: {
    unit: 'Count',
    dimensionSets: DELIVERY_SETS,
  },
  /** Receiver latency: from the POST to the end of the answer's (capped) body, or the failure. */
  DeliveryLatency: {
    unit: 'Milliseconds',
    dimensionSets: DELIVERY_SETS,
  },
  /** From the notification entering the notifications queue to the first POST to a webhook. */
  TimeToFirstAttempt: {
    unit: 'Milliseconds',
    dimensionSets: [[]],
  },
  /** Deliveries enqueued for one notification (webhooks it reached). */
  FanOutWidth: {
    unit: 'Count',
    dimensionSets: [[]],
  },
  /**
   * Webhook filter evaluations at fan-out that failed (a run-time error, the time bound, or a
   * stored filter that no longer compiles): each counts as no match.
   */
  FilterErrors: {
    unit: 'Count',
    dimensionSets: [[]],
  },
  /** One per recorded end of an integration lifecycle operation (outcome: succeeded | failed). */
  LifecycleOutcomes: {
    unit: 'Count',
    dimensionSets: [['outcome'], ['integrationType', 'operation', 'status']],
  },
  /** Authorizer decisions that a request carries no valid key (its route then answers 401). */
  AuthDenials: {
    unit: 'Count',
    dimensionSets: [['reason']],
  },
} as const satisfies Record<string, MetricDef>;

export type MetricName = keyof typeof metrics;
