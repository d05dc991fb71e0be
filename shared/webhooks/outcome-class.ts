/**
 * What an attempt's result means for its delivery and its webhook: its outcome class.
 * - `delivered`: the target took it. The delivery ends; a failure streak ends.
 * - `gone`: the target no longer exists. The delivery ends and the webhook is disabled at once.
 * - `failed`: anything else. Retried on the schedule; counted towards the failure streak.
 *
 * The transport gives every attempt its class, an HTTP answer through `classOfStatus` (2xx
 * delivered, 410 gone, anything else failed; no answer at all is failed). Every decision after
 * an attempt reads the class, never the status: the retry policy (pipeline/retry.ts), the
 * auto-disable and health tracking after it (pipeline/delivery.ts), and whether a later message
 * of the delivery is dropped (`alreadyHandled`). A target that is not an HTTP endpoint (an AWS
 * destination, ADR 0019) reports "gone" with another status: AWS answers 400 for a queue that
 * does not exist.
 *
 * Persisted only where the status says otherwise: a history record stores `outcomeClass` when its
 * class is not `classOfStatus(statusCode)`. Every HTTP record, and every record written before the
 * class existed, has none and is classed by its status (`outcomeClassOf`). So the records written
 * today are what they were, byte for byte, and an attempt's write units (issue 23) do not change.
 *
 * `delivered` is exactly a 2xx status (`succeeded`): the history's listing keys and counters,
 * the health counters, the failure-streak count and the recover job tell a success by its status
 * (the byWebhook index projects `statusCode`, not the class). So a transport records 2xx for a
 * success and a non-2xx for a failure (an EventBridge entry that failed inside an HTTP 200 too);
 * the class only tells `gone` from `failed`.
 */

export type OutcomeClass = 'delivered' | 'failed' | 'gone';

/** Whether a recorded status is a success: a 2xx. */
export const succeeded = (statusCode: number): boolean => statusCode >= 200 && statusCode < 300;

/** The class of an HTTP answer: 2xx delivered, 410 Gone gone, anything else failed. */
export function classOfStatus(statusCode: number): OutcomeClass {
  if (succeeded(statusCode)) return 'delivered';
  return statusCode === 410 ? 'gone' : 'failed';
}

/** An attempt's result or record as it is judged: its status, and its class when it carries one. */
export interface Classed {
  statusCode: number;
  outcomeClass?: OutcomeClass;
}

/** The class of a result or record: the one it carries, else its status's (every record without one). */
export function outcomeClassOf(result: Classed): OutcomeClass {
  return result.outcomeClass ?? classOfStatus(result.statusCode);
}

/** What a history record stores of an attempt's class: nothing when its status tells the same. */
export function storedOutcomeClass(result: Required<Classed>): { outcomeClass?: OutcomeClass } {
  return result.outcomeClass === classOfStatus(result.statusCode)
    ? {}
    : { outcomeClass: result.outcomeClass };
}
