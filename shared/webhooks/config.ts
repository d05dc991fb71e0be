/**
 * Delivery settings from the stage configuration (`infra/stages.ts` → env). Read on use, so a
 * test or a local run can change them without rebuilding anything.
 */
import { MAX_DELIVERY_RETRIES } from '../catalog/queues';
import { boolEnv, ConfigurationError, intEnv, intListEnv } from '../config/env';

/** Svix's schedule: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h (seconds). */
const DEFAULT_RETRY_SCHEDULE = [5, 300, 1800, 7200, 18000, 36000, 36000] as const;

/** SQS caps a message's visibility timeout at 12 hours; longer delays are clamped to it. */
export const MAX_RETRY_DELAY_SECONDS = 43_200;

/** The stored response body is cut at this many bytes; the rest is never read. */
export const RESPONSE_BODY_CAP_BYTES = 16 * 1024;

export const webhookTimeoutMs = (): number => intEnv('WEBHOOK_TIMEOUT_MS', 10_000);
/**
 * The bound of each call an AWS destination makes (STS's AssumeRole, and the send into the
 * customer's queue, topic or bus): the webhook timeout unless WEBHOOK_AWS_TIMEOUT_MS says
 * otherwise (the test clouds, whose 1.5 s webhook timeout is for the receivers they time out,
 * give their in-process sandbox account a hang guard instead).
 */
export const awsDestinationTimeoutMs = (): number => intEnv('WEBHOOK_AWS_TIMEOUT_MS', webhookTimeoutMs());
/** Connecting is bounded by `min(CONNECT_TIMEOUT_MS, the call's own timeout)`: a receiver's by default. */
export const connectTimeoutMs = (timeoutMs: number = webhookTimeoutMs()): number =>
  Math.min(intEnv('CONNECT_TIMEOUT_MS', 5_000), timeoutMs);
export const retrySchedule = (): number[] => {
  const schedule = intListEnv('WEBHOOK_RETRY_SCHEDULE', DEFAULT_RETRY_SCHEDULE);
  if (schedule.length > MAX_DELIVERY_RETRIES) {
    throw new ConfigurationError(
      `WEBHOOK_RETRY_SCHEDULE has ${schedule.length} retries; the deliveries queue allows at most ${MAX_DELIVERY_RETRIES}`,
    );
  }
  return schedule;
};
export const historyRetentionDays = (): number => intEnv('HISTORY_RETENTION_DAYS', 30);
/** Deliveries one fan-out invocation enqueues before it continues in a follow-up message. */
export const fanOutChunk = (): number => intEnv('FANOUT_CHUNK', 1000);
/** Write shards per history audience (stage `historyWriteShards`; docs/adr/0006). */
export const historyWriteShards = (): number => intEnv('HISTORY_WRITE_SHARDS', 8);
/** Off by default: only the local stage (and tests) deliver to loopback and private networks. */
export const allowPrivateTargets = (): boolean => boolEnv('ALLOW_PRIVATE_TARGETS', false);

/** How many webhooks one user may have (admins their own quota), and how many with one URL. */
export interface WebhookLimits {
  perUser: number;
  perAdmin: number;
  perUrl: number;
}
export const webhookLimits = (): WebhookLimits => ({
  perUser: intEnv('WEBHOOK_QUOTA_USER', 25),
  perAdmin: intEnv('WEBHOOK_QUOTA_ADMIN', 500),
  perUrl: intEnv('WEBHOOK_SAME_URL_LIMIT', 1),
});

/**
 * How long a disabled ordered webhook's key waits in its queue before it is held in the store
 * (ADR 0020): well inside the queue's 14-day retention, so nothing that waits reaches it.
 */
export const orderedHoldAfterSeconds = (): number => intEnv('ORDERED_HOLD_AFTER_SECONDS', 86_400);

/** How long the previous secret keeps signing after a rotation (deliveries carry both signatures). */
export const secretOverlapSeconds = (): number => intEnv('WEBHOOK_SECRET_OVERLAP_SECONDS', 86_400);

/**
 * Auto-disable: a webhook that has failed continuously for `afterSeconds` with at least
 * `minAttempts` failed attempts in that time is disabled (its owner warned at half the period).
 */
export interface AutoDisable {
  afterSeconds: number;
  minAttempts: number;
}
export const autoDisable = (): AutoDisable => ({
  afterSeconds: intEnv('WEBHOOK_AUTO_DISABLE_AFTER_SECONDS', 5 * 86_400),
  minAttempts: intEnv('WEBHOOK_AUTO_DISABLE_MIN_ATTEMPTS', 20),
});

/**
 * Failure-streak bookkeeping on (default). An operator's switch, not a stage setting: off, no
 * webhook is warned about or auto-disabled for failing (410 still disables). The benchmark
 * measures the pipeline with it off and on.
 */
export const healthTracking = (): boolean => boolEnv('WEBHOOK_HEALTH_TRACKING', true);

/** How many manual retries (`POST /webhooks/history/retry/{id}`) one user may start per window. */
export interface ManualRetryRate {
  perWindow: number;
  windowSeconds: number;
}
export const manualRetryRate = (): ManualRetryRate => ({
  perWindow: intEnv('WEBHOOK_MANUAL_RETRY_LIMIT', 10),
  windowSeconds: intEnv('WEBHOOK_MANUAL_RETRY_WINDOW_SECONDS', 60),
});

/**
 * Recover jobs re-send deliveries, each a POST to a receiver, so they are bounded like manual
 * sends (issue 34, item 10): each user has a rolling hourly budget of re-sends (admins a larger
 * one), charged with the deliveries a job will re-send when it starts; one job re-sends at most
 * `perJob`; and after a job of a webhook ends, the next may start `cooldownSeconds` later.
 */
export interface RecoverLimits {
  userPerHour: number;
  adminPerHour: number;
  perJob: number;
  cooldownSeconds: number;
}
export const recoverLimits = (): RecoverLimits => ({
  userPerHour: intEnv('WEBHOOK_RECOVER_USER_PER_HOUR', 2000),
  adminPerHour: intEnv('WEBHOOK_RECOVER_ADMIN_PER_HOUR', 100_000),
  perJob: intEnv('WEBHOOK_RECOVER_MAX_PER_JOB', 100_000),
  cooldownSeconds: intEnv('WEBHOOK_RECOVER_COOLDOWN_SECONDS', 300),
});
