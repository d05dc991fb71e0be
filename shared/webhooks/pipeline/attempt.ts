/**
 * The parts of one attempt that every sender shares (an automatic delivery, a recover job's
 * re-send, a manual retry, a test send): sign the payload, send it, and record the outcome.
 * The transport is the webhook's: a POST to its URL (./transport.ts), or a message into its AWS
 * destination (../aws/sqs.ts, sns.ts or eventbridge.ts, loaded only by a container that sends to one).
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

/** A signed request: what is sent, byte for byte (a destination carries the headers as attributes). */
export interface SignedRequest {
  body: string;
  headers: Record<string, string>;
}

/**
 * Which attempt a send is (a FIFO queue's or topic's deduplication id is made of it), of which
 * notification type (an EventBridge destination's default `detail-type`), and of which ordering
 * key (a FIFO destination's message group, for an ordered webhook).
 */
export type SendIdentity = Pick<
  AttemptFields,
  'deliveryId' | 'attempt' | 'retryOf' | 'recoverJob' | 'notificationType' | 'orderingKey'
>;

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
    body,
    headers: { ...webhookHeaders(deliveryId, body, credentials), traceparent },
  };
}

/**
 * Sends a signed request to the webhook's target: POSTed to its URL (./transport.ts: no
 * redirects, the stage's timeout, a capped answer, the SSRF guard), or into its destination.
 */
export async function send(
  webhook: WebhookItem,
  request: SignedRequest,
  identity: SendIdentity,
): Promise<AttemptOutcome> {
  const { destination } = webhook;
  if (destination === undefined) return postWebhook(webhook.url ?? '', request.body, request.headers);
  // Each transport loads its own AWS client, only in a container that sends to one.
  switch (destination.type) {
    case 'sqs':
      return (await import('../aws/sqs')).sendToQueue(destination, webhook, request, identity);
    case 'sns':
      return (await import('../aws/sns')).publishToTopic(destination, webhook, request, identity);
    case 'eventbridge':
      return (await import('../aws/eventbridge')).putOnBus(destination, webhook, request, identity);
  }
}

/** Signs and sends the attempt's payload to the webhook's target. */
export async function post(
  webhook: WebhookItem,
  fields: SendIdentity & Pick<AttemptFields, 'payload'>,
  traceparent: string,
): Promise<AttemptOutcome> {
  return send(webhook, await signedRequest(webhook, fields.deliveryId, fields.payload, traceparent), fields);
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
  /** Given up by an operator's skip of its parked key (ADR 0020): never sent. */
  keySkipped?: true;
  /** A second POST of an attempt already recorded (a twin message): keyed by its own id. */
  twin?: true;
  /** An earlier try of this attempt ended without a record: the receiver may have seen it. */
  possiblyDeliveredBefore?: true;
  /** A recover job's re-send: the job. */
  recoverJob?: string;
  /**
   * An ordered webhook's delivery of a keyed notification: the key (ADR 0020), a FIFO
   * destination's message group. Not recorded (the delivery id names the notification).
   */
  orderingKey?: string;
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
      ...(fields.keySkipped ? { keySkipped: true } : {}),
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
