/**
 * What happens after an attempt. Attempt n (1-based) that fails is retried after
 * `schedule[n-1]` seconds — or after the receiver's Retry-After on a 429/503 — until the
 * schedule is exhausted; then the delivery goes to the dead-letter queue. A 410 Gone ends the
 * delivery at once: the receiver said the endpoint no longer exists.
 */
import { MAX_RETRY_DELAY_SECONDS } from '../config';
import type { AttemptOutcome } from './transport';

export type NextStep =
  | { kind: 'delivered' }
  | { kind: 'gone' }
  | { kind: 'retry'; delaySeconds: number }
  | { kind: 'exhausted' };

export function nextStep(
  attempt: number,
  outcome: Pick<AttemptOutcome, 'delivered' | 'statusCode' | 'retryAfterSeconds'>,
  schedule: readonly number[],
): NextStep {
  if (outcome.delivered) return { kind: 'delivered' };
  if (outcome.statusCode === 410) return { kind: 'gone' };
  const scheduled = schedule[attempt - 1];
  if (scheduled === undefined) return { kind: 'exhausted' };
  const delay = outcome.retryAfterSeconds ?? scheduled;
  return { kind: 'retry', delaySeconds: Math.min(Math.max(0, delay), MAX_RETRY_DELAY_SECONDS) };
}

/** Attempts a delivery gets in total: the first plus one per schedule entry. */
export function maxAttempts(schedule: readonly number[]): number {
  return schedule.length + 1;
}
