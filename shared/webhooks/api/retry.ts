/**
 * `POST /webhooks/history/retry/{id}`: the API side finds the record among those the caller may
 * see (404 otherwise, never 403), then asks the webhook sender function to re-send it. The sender
 * holds the HTTP client, the SSRF guard and the permission to decrypt webhook secrets, so the
 * API function needs neither. Each user may start `manualRetryRate()` retries per window (a
 * counter in DynamoDB, so the limit holds across every concurrent function instance); past
 * it the answer is 429 with Retry-After.
 */
import type { Principal } from '../../auth/permissions';
import { NotFoundError, RateLimitedError } from '../../errors';
import type { NotificationName } from '../../notifications/catalog';
import { countInWindow } from '../../store/counters';
import { invokeInternal } from '../../store/internal-functions';
import { manualRetryRate } from '../config';
import type { HistoryRecord } from '../history-model';
import { findHistoryRecord } from '../store/history';
import type { StoredKey } from '../store/history-keys';
import { visibleAudiences } from './history';

/**
 * What the webhook sender is asked to do: re-send a record, or send a test notification. A
 * record is named by its key as the history table stores it (`seq`, a HistoryKey's `attemptOrId`
 * in code): the sender's input keeps the stored name, and its handler maps it.
 */
export type SenderRequest =
  | StoredKey
  | { testWebhookId: number; notificationType: NotificationName; caller: { userId: number; name: string } };

export type ResendResult = { ok: true; record: HistoryRecord } | { ok: false; notFound: string };

/**
 * Counts one manual send (a retry or a test send: each POSTs to a receiver) of the caller, or
 * refuses it with a 429 once the window holds the stage's limit.
 */
export async function countManualSend(caller: Principal, what: 'retry' | 'test send'): Promise<void> {
  const rate = manualRetryRate();
  const now = Date.now();
  const use = await countInWindow(
    `manual-retries-of:${caller.userId}`,
    rate.perWindow,
    rate.windowSeconds,
    now,
  );
  if (!use.counted) {
    const shared = what === 'retry' ? '' : ' (manual retries and test sends count together)';
    throw new RateLimitedError(
      `manual ${what} limit reached: at most ${rate.perWindow} per ${rate.windowSeconds} s${shared}; try again later`,
      Math.max(1, Math.ceil((use.windowEndsAt - now) / 1000)),
    );
  }
}

export async function requestRetry(caller: Principal, id: number): Promise<HistoryRecord> {
  await countManualSend(caller, 'retry');
  const original = await findHistoryRecord(id, visibleAudiences(caller));
  if (!original) throw new NotFoundError(`history record ${id} not found`);
  const result = await invokeInternal<ResendResult>('webhookSender', {
    deliveryId: original.deliveryId,
    seq: original.seq,
  } satisfies SenderRequest);
  if (!result.ok) throw new NotFoundError(result.notFound);
  return result.record;
}
