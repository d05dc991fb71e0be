/**
 * Fan-out of one notification: validate it (malformed → the notifications DLQ with the
 * reason), page through the subscriptions of each matching subscription key, evaluate the
 * filter of each subscribed webhook that has one, and enqueue one delivery message per
 * (notification, webhook) that passes.
 *
 * Filters (ADR 0010): a filtered webhook's subscription item carries its filter, version and
 * name, so the decision needs no read beyond the subscription page; the compiled form is cached
 * per webhook version (../filter.ts), and a webhook without a filter costs nothing more. A
 * failed evaluation (run-time error, time bound) is no delivery; it is logged, counted in the
 * `FilterErrors` metric and in the webhook's hourly counters (`filterErrors` on its health).
 * The decision is made here only: a queued delivery is attempted whatever the filter becomes.
 *
 * Bounded: one invocation enqueues at most `fanOutChunk()` deliveries (1,000) and stops early
 * when less than CONTINUE_BEFORE_MS of its time remain; the rest continues in a follow-up
 * message on the notifications queue that carries the notification, where it stopped, and the
 * notification's trace context and enqueue time. A keyed notification on the ordered intake
 * continues in the same message instead, which holds its key meanwhile (ADR 0020).
 *
 * Once (ADR 0012): a step runs under a lease in the idempotency table and marks itself done once
 * its deliveries and its follow-up were sent. A copy of the step that arrives while it runs (a
 * producer's retry with the same id, an SQS duplicate) comes back after the lease instead of
 * enqueueing the same deliveries beside it; a redelivered step that is done is skipped. A step
 * whose holder died half-way is taken over once its lease ran out and done again: the message
 * comes back only after its visibility timeout (3 minutes), so the deliveries the dead holder
 * sent have almost always been attempted and recorded by then, and the delivery consumer's read
 * of the delivery's records drops their twins. A step that continues is marked done with where
 * the follow-up starts, and the edge sends the follow-up after (ADR 0014): a step redelivered
 * in between finds the mark and sends the follow-up again (that copy finds its own step taken).
 * A notification's own mark (`fanout#<digest>`) is written only by the last step of one that
 * continued, and read only when its first step's mark says it continued: a notification fanned
 * out in one step (nearly all) costs the step's lease and done mark, no third write and no read.
 */
import * as z from 'zod/mini';
import { queueDef } from '../../catalog/queues';
import { done, type MessageContext, type Next, retryIn, sendAgain } from '../../edge/queue/contract';
import { ALL_NOTIFICATIONS } from '../../notifications/catalog';
import { type NotificationMessage, NotificationMessageSchema, pertainsTo } from '../../notifications/message';
import { describeError, logger } from '../../observability/logger';
import { recordFanOut, recordFilterErrors } from '../../observability/metrics';
import { sendPooled } from '../../store/pooled-sends';
import { sendInOrder } from '../../store/queues';
import { fanOutChunk } from '../config';
import type { DeliveryPayload } from '../history-model';
import { exists, finishStep, markOnce, type StepClaim, type StepContinues, takeStep } from '../store/dedup';
import { addFilterErrors } from '../store/health';
import { notificationSubscriptionKeys, sameAudienceKey } from '../store/subscriptions';
import { alsoSubscribed, type Subscription, subscriptionPage } from '../store/webhooks';
import {
  activityIdFor,
  type DeliveryMessage,
  deliveryIdFor,
  notificationDigest,
  orderedDeliveryGroup,
} from './message';
import { notificationOrigin } from './telemetry';

/** Webhook ids named in the fan-out log line, at most. */
const LOGGED_WEBHOOK_IDS = 100;

/** Longer than a notification can live on its queue (4 days). */
const FAN_OUT_MARKER_TTL_DAYS = 5;
/** A step's lease: longer than the fan-out function may run (Lambda ends it at its timeout). */
const STEP_LEASE_MS = (queueDef('notifications').consumer.timeoutSeconds + 5) * 1000;

/**
 * The metadata a delivery carries: the notification's, with its `notificationType` always the
 * message's type — a producer's `metadata.notificationType` never overrides it (issue 34, item
 * 14: a spoofed value reached receivers and filters).
 */
function deliveredMetadata(message: NotificationMessage): DeliveryPayload['metadata'] {
  return { ...message.metadata, notificationType: message.notificationType };
}

export function deliveryMessages(
  message: NotificationMessage,
  digest: string,
  webhookIds: readonly number[],
  origin: Pick<DeliveryMessage, 'traceparent' | 'notifiedAt'> = {},
): DeliveryMessage[] {
  const activityId = activityIdFor(digest);
  const metadata = deliveredMetadata(message);
  return webhookIds.map((webhookId) => ({
    v: 1,
    deliveryId: deliveryIdFor(digest, webhookId),
    webhookId,
    activityId,
    notificationType: message.notificationType,
    text: message.text,
    metadata,
    ...origin,
  }));
}

/** Filter failures logged per page, at most (all are counted). */
const LOGGED_FILTER_ERRORS = 10;

/**
 * The webhooks of `subscriptions` the notification goes to: every one without a filter, and
 * those whose filter is true for the payload as it would be delivered. Failed evaluations are
 * counted (metric, the webhooks' hourly counters) and logged.
 */
async function passingFilters(
  message: NotificationMessage,
  subscriptions: readonly Subscription[],
  now = Date.now(),
): Promise<number[]> {
  const passing: number[] = [];
  /** Webhook id → the kind of its filter's failure. */
  const failed = new Map<number, string>();
  let metadata: DeliveryPayload['metadata'] | undefined;
  // The CEL evaluator loads with the first filtered webhook a container sees, not at init: a
  // notification whose webhooks have no filter never needs it (≈ 11 ms of a cold start).
  let filterDecision: typeof import('../filter').filterDecision | undefined;
  for (const { webhookId, filter, updatedAt, webhookName } of subscriptions) {
    if (filter === undefined) {
      passing.push(webhookId);
      continue;
    }
    metadata ??= deliveredMetadata(message);
    filterDecision ??= (await import('../filter')).filterDecision;
    const decision = filterDecision(
      { id: webhookId, updatedAt: updatedAt ?? '', filter },
      { text: message.text, metadata, webhookId, webhookName: webhookName ?? '' },
    );
    if (decision.matched) passing.push(webhookId);
    else if (decision.error !== undefined) failed.set(webhookId, decision.kind ?? 'evaluation_error');
  }
  if (failed.size > 0) {
    recordFilterErrors(failed.size);
    // The kind of each failure only: an error's message can quote the payload (a key read from
    // `text`, a value), and the log is no place for notification content (issue 34, item 16).
    logger.warn('webhook filters failed: no delivery', {
      notificationType: message.notificationType,
      failures: [...failed].slice(0, LOGGED_FILTER_ERRORS).map(([webhookId, kind]) => ({ webhookId, kind })),
      count: failed.size,
    });
    try {
      await addFilterErrors(new Map([...failed.keys()].map((id) => [id, 1])), now);
    } catch (error) {
      // Counting never fails a fan-out (the deliveries are what matters): the metric and the
      // line above have the failures.
      logger.error('filter errors not counted on the webhooks', {
        webhookIds: [...failed.keys()].slice(0, LOGGED_FILTER_ERRORS),
        ...describeError(error),
      });
    }
  }
  return passing;
}

/**
 * The ordered webhooks among `subscriptions` and the key they are ordered by: only a notification
 * taken from the ordered intake (`groupId`, its key) has them; elsewhere every delivery is unordered.
 */
function orderedOf(
  subscriptions: readonly Subscription[],
  groupId: string | undefined,
): { key: string; webhookIds: ReadonlySet<number> } | undefined {
  if (groupId === undefined) return undefined;
  const webhookIds = new Set(subscriptions.filter((s) => s.ordered === true).map((s) => s.webhookId));
  return webhookIds.size > 0 ? { key: groupId, webhookIds } : undefined;
}

/**
 * Sends the deliveries: an ordered webhook's of a keyed notification to the ordered deliveries
 * queue, into the group of its webhook and key, with the delivery id as deduplication id (ADR
 * 0020); every other one to the deliveries queue. The intake hands out a key's notifications one
 * at a time, so a key's deliveries enter their group in the order of the key's notifications.
 */
async function enqueue(
  deliveries: readonly DeliveryMessage[],
  ordered: { key: string; webhookIds: ReadonlySet<number> } | undefined,
): Promise<void> {
  const inOrder = ordered ? deliveries.filter((d) => ordered.webhookIds.has(d.webhookId)) : [];
  const rest = ordered ? deliveries.filter((d) => !ordered.webhookIds.has(d.webhookId)) : deliveries;
  await Promise.all([
    // With the other notifications of the batch, ten deliveries a SendMessageBatch (ADR 0023).
    sendPooled(
      'deliveries',
      rest.map((d) => JSON.stringify(d)),
    ),
    ordered && inOrder.length > 0
      ? sendInOrder(
          'deliveriesOrdered',
          inOrder.map((d) => ({
            body: JSON.stringify({ ...d, orderingKey: ordered.key }),
            groupId: orderedDeliveryGroup(d.webhookId, ordered.key),
            deduplicationId: d.deliveryId,
          })),
        )
      : undefined,
  ]);
}

/** A step stops while this much of its invocation's time is left (sending the follow-up). */
const CONTINUE_BEFORE_MS = 10_000;
/**
 * Subscriptions read by a key's first query: most keys hold a few webhooks, and a large key's
 * first deliveries go out after a short page.
 */
const FIRST_PAGE_SIZE = 100;
/**
 * Subscriptions read by each later query of a key (DynamoDB stops a page at 1 MB before that): a
 * key with a thousand webhooks is read in two round trips, not ten, so its k-th match no longer
 * waits for a page per hundred before it (bench figure 20, the 1,000-webhook owner).
 */
const NEXT_PAGE_SIZE = 1000;

/** The follow-up message of a fan-out that continues (on the notifications queue). */
const FanOutContinuationSchema = z.strictObject({
  v: z.literal(1),
  continuation: z.strictObject({
    notification: NotificationMessageSchema,
    digest: z.string().check(z.regex(/^[0-9a-f]{64}$/)),
    /** Index into the notification's subscription keys, and the last webhook id done under it. */
    key: z.int().check(z.nonnegative()),
    after: z.optional(z.int().check(z.positive())),
    /** Deliveries enqueued by the steps before. */
    sent: z.int().check(z.nonnegative()),
    traceparent: z.optional(z.string().check(z.maxLength(55))),
    notifiedAt: z.optional(z.int().check(z.nonnegative())),
  }),
});
type Continuation = z.infer<typeof FanOutContinuationSchema>['continuation'];
export type FanOutMessage = NotificationMessage | z.infer<typeof FanOutContinuationSchema>;

const isContinuation = (json: unknown): boolean =>
  typeof json === 'object' && json !== null && 'continuation' in json;

/** The notifications queue's message: a producer's notification, or a fan-out's follow-up. */
export const fanOutMessage = (json: unknown) =>
  isContinuation(json)
    ? { schema: FanOutContinuationSchema as z.ZodMiniType<FanOutMessage>, what: 'fan-out continuation' }
    : { schema: NotificationMessageSchema as z.ZodMiniType<FanOutMessage>, what: 'notification' };

const stepMarker = (step: Pick<Continuation, 'digest' | 'key' | 'after'>) =>
  `fanout#${step.digest}#${step.key}#${step.after ?? ''}`;

/** The notification's first step (the producer's message; every follow-up starts further on). */
const isFirst = (step: Pick<Continuation, 'key' | 'after'>) => step.key === 0 && step.after === undefined;

/** The step of `step`'s notification that starts at `at`. */
function stepAt(step: Continuation, at: StepContinues): Continuation {
  const { after: _done, ...rest } = step;
  return { ...rest, key: at.key, ...(at.after !== undefined ? { after: at.after } : {}), sent: at.sent };
}

/**
 * How a step that stopped at `at` continues. On the notifications queue: a follow-up message.
 * On the ordered intake (a FIFO group per key) a follow-up would go behind the key's later
 * notifications, so the step holds its key's head instead: the message comes back at once and
 * goes on from the step's mark (ADR 0020).
 */
function continuation(
  step: Continuation,
  at: StepContinues,
  deliveries: number,
  context: MessageContext,
): Next {
  if (context.groupId !== undefined)
    return retryIn(0, 'the fan-out continues: its key is held while the same message goes on from the mark');
  return sendAgain(
    { v: 1, continuation: stepAt(step, at) },
    0,
    'the fan-out continues in a follow-up message',
    {
      deliveries,
    },
  );
}

/** Subscriptions read by the next query of a step that has enqueued `sent` deliveries. */
const pageLimit = (chunk: number, sent: number, after: number | undefined) =>
  Math.max(1, Math.min(after === undefined ? FIRST_PAGE_SIZE : NEXT_PAGE_SIZE, chunk - sent));
/** Keys whose first page a step reads ahead: a notification to one user has four. */
const READ_AHEAD_KEYS = 4;
type PageAhead = { key: number; after?: number; limit: number; page: ReturnType<typeof subscriptionPage> };

/**
 * The step's first pages (from where it starts, then the next keys' first), read side by side while
 * its lease is taken: deliveries wait for the slowest round trip, not the lease's and one per key in
 * turn (figure 20). A step that stops early (done, running elsewhere, continuing) wasted at most
 * READ_AHEAD_KEYS reads, never a write; nothing is enqueued before the lease is held (ADR 0012).
 */
function readAhead(step: Continuation, keys: readonly string[], chunk: number): PageAhead[] {
  return keys.slice(step.key, step.key + READ_AHEAD_KEYS).map((subscriptionKey, i) => {
    const after = i === 0 ? step.after : undefined;
    const limit = pageLimit(chunk, 0, after);
    const page = subscriptionPage(subscriptionKey, after, limit);
    // A page the step does not use must not surface as an unhandled rejection; a used one throws where it is awaited.
    page.catch(() => undefined);
    return { key: step.key + i, after, limit, page };
  });
}

/** One fan-out step of a notification (the notifications queue's consumer). */
export async function fanOut(message: FanOutMessage, context: MessageContext): Promise<Next> {
  let step: Continuation;
  if ('continuation' in message) step = message.continuation;
  else {
    const digest = notificationDigest(
      message.id !== undefined ? `p:${message.id}` : `m:${context.messageId}`,
    );
    step = { notification: message, digest, key: 0, sent: 0, ...notificationOrigin(context) };
  }
  let marker = stepMarker(step);
  const whole = `fanout#${step.digest}`;
  const keys = notificationSubscriptionKeys(
    step.notification.notificationType,
    pertainsTo(step.notification),
  );
  const chunk = fanOutChunk();
  const ahead = readAhead(step, keys, chunk);
  let started = Date.now();
  let taken = await takeStep(marker, STEP_LEASE_MS, FAN_OUT_MARKER_TTL_DAYS, started);
  // A first step marked done without `next` says the whole notification is done (it was fanned
  // out in one step); one that continued is done once its last step wrote the notification's mark.
  if (isFirst(step) && taken.state === 'done' && taken.next && (await exists(whole)))
    taken = { state: 'done' } satisfies StepClaim;
  // A held head of the ordered intake comes back as the notification itself: it goes on from
  // the last step done, following their marks.
  while (context.groupId !== undefined && taken.state === 'done' && taken.next) {
    step = stepAt(step, taken.next);
    marker = stepMarker(step);
    started = Date.now();
    taken = await takeStep(marker, STEP_LEASE_MS, FAN_OUT_MARKER_TTL_DAYS, started);
  }
  const leaseEnds = started + STEP_LEASE_MS;
  if (taken.state === 'done') {
    logger.info('fan-out step already done', { messageId: context.messageId, key: step.key });
    // Marked done before its follow-up was sent: the follow-up is sent (again).
    return taken.next ? continuation(step, taken.next, 0, context) : done({ deliveries: 0 });
  }
  if (taken.state === 'running') {
    const seconds = Math.max(1, Math.ceil((taken.leaseUntil - Date.now()) / 1000) + 1);
    return retryIn(seconds, `fan-out step ${step.key} is running elsewhere; back in ${seconds} s`);
  }
  if (taken.takenOver)
    logger.warn('fan-out step taken over from a holder whose lease ran out', {
      messageId: context.messageId,
      key: step.key,
    });
  const { notification, digest } = step;
  const origin = {
    ...(step.traceparent ? { traceparent: step.traceparent } : {}),
    ...(step.notifiedAt !== undefined ? { notifiedAt: step.notifiedAt } : {}),
  };
  let { key, after } = step;
  let sent = 0;
  const stepIds: number[] = [];
  while (key < keys.length) {
    const current = keys[key] as string;
    const limit = pageLimit(chunk, sent, after);
    const read = ahead.find((a) => a.key === key && a.after === after && a.limit === limit);
    const page = await (read?.page ?? subscriptionPage(current, after, limit));
    let subscriptions = page.subscriptions;
    if (current.startsWith(`${ALL_NOTIFICATIONS}#`) && subscriptions.length > 0) {
      // A webhook subscribed to the type and to ALL_NOTIFICATIONS gets one delivery (under the type).
      const typed = await alsoSubscribed(
        sameAudienceKey(current, notification.notificationType),
        subscriptions.map((s) => s.webhookId),
      );
      subscriptions = subscriptions.filter((s) => !typed.has(s.webhookId));
    }
    const ids = await passingFilters(notification, subscriptions);
    const deliveries = deliveryMessages(notification, digest, ids, origin);
    await enqueue(deliveries, orderedOf(subscriptions, context.groupId));
    sent += deliveries.length;
    stepIds.push(...ids.slice(0, LOGGED_WEBHOOK_IDS - stepIds.length));
    if (page.next !== undefined) after = page.next;
    else {
      key += 1;
      after = undefined;
    }
    // Stops well inside its lease too (an invocation that overran its timeout, as the local cloud
    // allows): once the lease has run out the step may be taken over, and the two would overlap.
    const outOfTime =
      context.deadline - Date.now() < CONTINUE_BEFORE_MS || leaseEnds - Date.now() < CONTINUE_BEFORE_MS;
    if (key < keys.length && (sent >= chunk || outOfTime)) {
      const at: StepContinues = { key, ...(after !== undefined ? { after } : {}), sent: step.sent + sent };
      // The mark says where the follow-up starts: a copy of this step that finds it done sends it.
      await finishStep(marker, FAN_OUT_MARKER_TTL_DAYS, at);
      logger.info('fan-out continues in a follow-up message', {
        messageId: context.messageId,
        sent,
        key,
        webhookIds: stepIds,
      });
      return continuation(step, at, sent, context);
    }
  }
  // Written last: after a crash before these lines the lease runs out and the step is taken over.
  // A notification fanned out in one step needs no mark of its own: its step's mark says it.
  await Promise.all([
    finishStep(marker, FAN_OUT_MARKER_TTL_DAYS),
    isFirst(step) ? undefined : markOnce(whole, FAN_OUT_MARKER_TTL_DAYS),
  ]);
  recordFanOut(step.sent + sent);
  logger.info('notification fanned out', {
    messageId: context.messageId,
    notificationType: notification.notificationType,
    deliveries: step.sent + sent,
    // Which webhooks this step sent it to (the first LOGGED_WEBHOOK_IDS): what an operator asks first.
    webhookIds: stepIds,
  });
  return done({ deliveries: sent });
}
