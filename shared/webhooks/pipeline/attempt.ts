/**
 * The parts of one attempt that every sender shares (an automatic delivery, a recover job's
 * re-send, a manual retry, a test send): sign the payload, send it, and record the outcome.
 *
 * Once a POST was made its outcome is recorded: a failed history write is retried (never the
 * POST) until shortly before the invocation's deadline, and what happens next does not depend on
 * it — a write failure never brings a message back for another POST.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Context } from 'aws-lambda';
import { describeError, logger } from '../../observability/logger';
import type { DeliveryPayload } from '../history-model';
import type { WebhookItem } from '../model';
import { storedOutcomeClass } from '../outcome-class';
import { signingCredentials } from '../secrets';
import { newHistoryItem, putHistoryItem } from '../store/history';
import type { StoredHistoryRecord } from '../store/history-keys';
import { targetLabel } from '../target';
import { webhookHeaders } from './signing';
import { type AttemptOutcome, postWebhook } from './transport';

/** A signed request to a webhook's URL: what is sent, byte for byte. */
export interface SignedRequest {
  url: string;
  body: string;
  headers: Record<string, string>;
}

/** The payload as JSON, signed with the webhook’s live secrets or keys, with the attempt's trace header. */
export async function signedRequest(
  webhook: WebhookItem,
  deliveryId: string,
  payload: DeliveryPayload,
  traceparent: string,
): Promise<SignedRequest> {
  const body = JSON.stringify(payload);
  const credentials = await signingCredentials(webhook);
  return {
    url: webhook.url,
    body,
    headers: { ...webhookHeaders(deliveryId, body, credentials), traceparent },
  };
}

/** POSTs a signed request (./transport.ts: no redirects, the stage's timeout, a capped answer). */
export const send = (request: SignedRequest): Promise<AttemptOutcome> =>
  postWebhook(request.url, request.body, request.headers);

/** Signs and POSTs the payload to the webhook's URL. */
export async function post(
  webhook: WebhookItem,
  deliveryId: string,
  payload: DeliveryPayload,
  traceparent: string,
): Promise<AttemptOutcome> {
  return send(await signedRequest(webhook, deliveryId, payload, traceparent));
}

/** The recorded outcome of an attempt that was due while its webhook was disabled: no POST. */
export function skippedOutcome(webhook: WebhookItem): AttemptOutcome {
  const why = webhook.disabledReason ? `: ${webhook.disabledReason}` : '';
  return {
    statusCode: 0,
    response: {
      body: { code: 'EWEBHOOKDISABLED', connect: false, message: `not sent, the webhook is disabled${why}` },
    },
    outcomeClass: 'failed',
    delivered: false,
    durationMs: 0,
    failureCode: 'EWEBHOOKDISABLED',
  };
}

/** Time kept free after the last history write try: what happens next still has to run. */
const RESERVED_MS = 8_000;
/** Without an invocation deadline (direct calls), history writes are retried for this long. */
const DEFAULT_WRITE_BUDGET_MS = 20_000;

/** Until when a history write may be retried, for an invocation that ends at `deadline` (epoch ms). */
export function writeDeadline(deadline: number | undefined): number {
  return deadline === undefined
    ? Date.now() + DEFAULT_WRITE_BUDGET_MS
    : Math.max(Date.now(), deadline - RESERVED_MS);
}

/** When a Lambda invocation ends (epoch ms), if it runs in one. */
export const invocationEnd = (context: Pick<Context, 'getRemainingTimeInMillis'> | undefined) =>
  context ? Date.now() + context.getRemainingTimeInMillis() : undefined;

export interface AttemptFields {
  deliveryId: string;
  attempt: number;
  activityId: number;
  notificationType: string;
  payload: DeliveryPayload;
  retryOf?: number;
  test?: true;
  skipped?: true;
  /** A second POST of an attempt already recorded (a twin message): keyed by its own id. */
  twin?: true;
  /** An earlier try of this attempt ended without a record: the receiver may have seen it. */
  possiblyDeliveredBefore?: true;
  /** A recover job's re-send: the job. */
  recoverJob?: string;
}

/**
 * Records a POST's outcome, retrying the write with jittered exponential back-off until
 * `deadline`: the stored record, `duplicate` when another message of the same attempt recorded
 * it first, or undefined when it could still not be stored (logged as an error with the ids).
 */
export async function record(
  webhook: WebhookItem,
  fields: AttemptFields,
  outcome: AttemptOutcome,
  deadline: number,
): Promise<StoredHistoryRecord | 'duplicate' | undefined> {
  const fresh = () =>
    newHistoryItem({
      request: fields.payload,
      response: outcome.response,
      statusCode: outcome.statusCode,
      // Only a class the status does not tell (none today): the record's write units stay as they were.
      ...storedOutcomeClass(outcome),
      durationMs: outcome.durationMs,
      notificationType: fields.notificationType,
      webhooksActivityId: fields.activityId,
      webhooksId: webhook.id,
      url: targetLabel(webhook),
      name: webhook.name,
      actionType: webhook.actionType ?? null,
      createdBy: webhook.createdBy,
      deliveryId: fields.deliveryId,
      attempt: fields.attempt,
      global: webhook.global,
      ...(fields.retryOf !== undefined ? { retryOf: fields.retryOf } : {}),
      ...(fields.test ? { test: true } : {}),
      ...(fields.skipped ? { skipped: true } : {}),
      ...(fields.twin ? { twin: true } : {}),
      ...(fields.possiblyDeliveredBefore ? { possiblyDeliveredBefore: true } : {}),
      ...(fields.recoverJob !== undefined ? { recoverJob: fields.recoverJob } : {}),
    });
  // Built once (its id is its time), then written until it stores.
  let item: StoredHistoryRecord | undefined;
  for (let round = 0; ; round++) {
    try {
      item ??= await fresh();
      return (await putHistoryItem(item)) === 'stored' ? item : 'duplicate';
    } catch (error) {
      const pause = Math.random() * Math.min(2_000, 100 * 2 ** round);
      const ids = { deliveryId: fields.deliveryId, attempt: fields.attempt, webhookId: webhook.id };
      if (Date.now() + pause > deadline) {
        logger.error('history record not stored: the POST was made, its write kept failing', {
          ...ids,
          statusCode: outcome.statusCode,
          tries: round + 1,
          ...describeError(error),
        });
        return undefined;
      }
      logger.warn('history write failed; retrying the write (not the POST)', {
        ...ids,
        ...describeError(error),
      });
      await sleep(pause);
    }
  }
}
