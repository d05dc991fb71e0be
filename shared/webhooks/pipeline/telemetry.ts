/**
 * The pipeline's telemetry: the class of an attempt's result and its metrics, and the W3C
 * `traceparent` each delivered request carries (one trace per notification: fan-out stores the
 * notification's trace context in every delivery message, each attempt is a child span of it).
 */
import type { DeliveryOutcome } from '../../catalog/metrics';
import { optionalEnv } from '../../config/env';
import type { MessageContext } from '../../edge/queue/contract';
import { recordDeliveryAttempt } from '../../observability/metrics';
import { childOf, firstTrace, formatTraceparent, newTrace } from '../../observability/trace';
import type { DeliveryMessage } from './message';
import type { AttemptOutcome } from './transport';

const TIMEOUT_CODES = new Set(['ESOCKETTIMEDOUT', 'ETIMEDOUT']);
const REFUSED_CODES = new Set(['ECONNREFUSED', 'ECONNRESET']);

function attemptClass(outcome: AttemptOutcome): DeliveryOutcome {
  if (outcome.failureCode !== undefined) {
    if (outcome.failureCode === 'ETARGETBLOCKED') return 'ssrfBlocked';
    if (TIMEOUT_CODES.has(outcome.failureCode)) return 'timeout';
    if (REFUSED_CODES.has(outcome.failureCode)) return 'refused';
    return 'network';
  }
  if (outcome.delivered) return 'delivered';
  if (outcome.statusCode >= 500) return 'http5xx';
  if (outcome.statusCode >= 400) return 'http4xx';
  if (outcome.statusCode >= 300) return 'redirect';
  // 1xx (never final) or a non-2xx a receiver invented: the attempt failed at the HTTP level.
  return 'http4xx';
}

/** Metrics of one POST; `notifiedAt` (epoch ms) gives the time to a first attempt. */
export function observeAttempt(outcome: AttemptOutcome, attempt: number, notifiedAt?: number): void {
  recordDeliveryAttempt({
    outcome: attemptClass(outcome),
    latencyMs: outcome.durationMs,
    ...(attempt === 1 && notifiedAt !== undefined ? { timeToFirstAttemptMs: Date.now() - notifiedAt } : {}),
  });
}

/**
 * What fan-out adds to each delivery message of a notification: the notification's trace (its
 * producer's X-Ray header on the queued message, else this invocation's, else a new trace) and
 * when it entered the queue.
 */
export function notificationOrigin(
  queued: Pick<MessageContext, 'traceHeader' | 'sentAt'>,
): Pick<DeliveryMessage, 'traceparent' | 'notifiedAt'> {
  const trace =
    firstTrace({ xray: queued.traceHeader }, { xray: optionalEnv('_X_AMZN_TRACE_ID') }) ?? newTrace();
  return {
    traceparent: formatTraceparent(trace),
    ...(queued.sentAt !== undefined ? { notifiedAt: queued.sentAt } : {}),
  };
}

/**
 * The `traceparent` header of one attempt: a new span in the notification's trace (from the
 * message, else the X-Ray header the queued delivery carried, else this invocation's, else a new
 * trace).
 */
export function deliveryTraceparent(message: { traceparent?: string }, traceHeader?: string): string {
  const trace =
    firstTrace(
      { traceparent: message.traceparent },
      { xray: traceHeader },
      { xray: optionalEnv('_X_AMZN_TRACE_ID') },
    ) ?? newTrace();
  return formatTraceparent(childOf(trace));
}
