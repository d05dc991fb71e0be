/**
 * What happens after an attempt, by its outcome class (../outcome-class.ts). Attempt n (1-based)
 * that fails is retried after `schedule[n-1]` seconds — or after the receiver's Retry-After on a
 * 429/503 — until the schedule is exhausted; then the delivery goes to the dead-letter queue. A
 * `gone` target (a 410 Gone: the receiver said the endpoint no longer exists) ends the delivery
 * at once.
 */
import { MAX_RETRY_DELAY_SECONDS } from '../config';
import { type Classed, outcomeClassOf } from '../outcome-class';
import type { AttemptOutcome } from './transport';

export type NextStep =
  | { kind: 'delivered' }
  | { kind: 'gone' }
  | { kind: 'retry'; delaySeconds: number }
  | { kind: 'exhausted' };

/**
 * What the policy reads of an attempt's result: its class (by its status when it carries none)
 * and the receiver's Retry-After. `delivered` may come along; the class decides.
 */
type Judged = Classed &
  Pick<AttemptOutcome, 'retryAfterSeconds'> &
  Partial<Pick<AttemptOutcome, 'delivered'>>;

export function nextStep(attempt: number, outcome: Judged, schedule: readonly number[]): NextStep {
  const outcomeClass = outcomeClassOf(outcome);
  if (outcomeClass === 'delivered') return { kind: 'delivered' };
  if (outcomeClass === 'gone') return { kind: 'gone' };
  const scheduled = schedule[attempt - 1];
  if (scheduled === undefined) return { kind: 'exhausted' };
  const delay = outcome.retryAfterSeconds ?? scheduled;
  return { kind: 'retry', delaySeconds: Math.min(Math.max(0, delay), MAX_RETRY_DELAY_SECONDS) };
}

/** Attempts a delivery gets in total: the first plus one per schedule entry. */
export function maxAttempts(schedule: readonly number[]): number {
  return schedule.length + 1;
}
