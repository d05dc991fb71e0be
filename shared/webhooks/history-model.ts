/**
 * The delivery history's shapes: the payload POSTed to a receiver, the history record the API
 * returns, and the history query and page. The stored item and its keys are store/history-keys.ts.
 */
import * as z from 'zod/mini';
import { documentedAs, queryBoolean, queryInt } from '../edge/validation';
import { lazySchema } from '../lazy-schema';
import { NOTIFICATION_NAMES } from '../notifications/catalog';
import { NotificationMetadataSchema } from '../notifications/metadata';
import { notificationName } from '../notifications/name-schema';
import { described, withMeta } from '../schema-meta';
import { ActionTypeSchema } from './action-type';
import { DELIVERY_ID } from './delivery-id';

const MAX_HISTORY_PAGE_SIZE = 100;
const MAX_HISTORY_OFFSET = 10_000;

/** The payload POSTed to a receiver (and stored as the history record's `request`). */
const DeliveryPayloadSchema = z.object({
  text: z.string(),
  metadata: NotificationMetadataSchema,
  webhookId: z.int(),
  webhookName: z.string(),
});
export type DeliveryPayload = z.infer<typeof DeliveryPayloadSchema>;

export const HistoryRecordSchema = withMeta(
  z.object({
    id: z.int(),
    request: DeliveryPayloadSchema,
    response: z.record(z.string(), z.unknown()),
    statusCode: z.int(),
    notificationType: z.string(),
    webhooksActivityId: described(z.int(), 'the notification this delivery belongs to'),
    createdAt: z.string(),
    updatedAt: z.string(),
    webhooksId: z.int(),
    url: z.string(),
    name: z.string(),
    actionType: z.nullable(ActionTypeSchema),
    createdBy: z.int(),
    deliveryId: described(z.string(), 'the webhook-id header: the same for every attempt of one delivery'),
    attempt: described(z.int(), '1 for the first attempt; manual retries count on'),
    durationMs: described(
      z.optional(z.number().check(z.int())),
      'how long the attempt took: sending the request until the answer or the failure (ms)',
    ),
    retryOf: described(
      z.optional(z.number().check(z.int())),
      'manual retries and recovered deliveries: the id of the record that was re-sent',
    ),
    test: described(z.optional(z.literal(true)), 'a test send (`POST /webhooks/{id}/test`)'),
    skipped: described(
      z.optional(z.literal(true)),
      'not sent: the webhook was disabled when the attempt was due (statusCode 0); `POST /webhooks/{id}/recover` can send it',
    ),
    keySkipped: described(
      z.optional(z.literal(true)),
      "an ordered webhook's parked key was skipped (`POST /webhooks/{id}/ordering-keys/{key}/skip`): this delivery, its head, is given up and never sent (statusCode 0); the key's later notifications went on",
    ),
    possiblyDeliveredBefore: described(
      z.optional(z.literal(true)),
      'the receiver may have seen this webhook-id already: an earlier try of this attempt (or re-send) ended without a record, as when the service stopped mid-POST; deduplicate on webhook-id',
    ),
  }),
  { id: 'WebhookHistoryRecord', description: 'One delivery attempt.' },
);
export type HistoryRecord = z.infer<typeof HistoryRecordSchema>;

/** An ISO 8601 instant with offset, parsed to epoch milliseconds. */
export const instant = (description: string) =>
  documentedAs(
    z.pipe(
      z.iso.datetime({ offset: true }),
      z.transform((v) => Date.parse(v)),
    ),
    {
      type: 'string',
      format: 'date-time',
      description,
    },
  );

export const HistoryQuerySchema = z
  .strictObject({
    offset: z._default(queryInt(0, MAX_HISTORY_OFFSET), 0),
    pageSize: z._default(queryInt(1, MAX_HISTORY_PAGE_SIZE), 20),
    sortField: z._default(z.enum(['createdAt', 'updatedAt', 'id']), 'createdAt'),
    sortOrder: z._default(
      documentedAs(
        z.pipe(
          z.pipe(
            z.string(),
            z.transform((v) => v.toLowerCase()),
          ),
          z.enum(['asc', 'desc']),
        ),
        {
          type: 'string',
          enum: ['asc', 'desc'],
          description: 'Case-insensitive.',
        },
      ),
      'desc',
    ),
    notificationType: z.optional(notificationName(NOTIFICATION_NAMES)),
    includeGlobal: z._default(queryBoolean(), false),
    includeUser: z._default(queryBoolean(), true),
    successOrFailure: z.optional(z.enum(['success', 'failure'])),
    webhookId: z.optional(
      documentedAs(
        z.pipe(
          z.pipe(
            z.string().check(z.regex(/^[1-9][0-9]{0,15}$/, 'must be a positive integer')),
            z.transform(Number),
          ),
          z.int().check(z.lte(Number.MAX_SAFE_INTEGER)),
        ),
        { type: 'integer', minimum: 1, description: "only this webhook's records (served by its own index)" },
      ),
    ),
    deliveryId: described(
      z.optional(
        z
          .string()
          .check(
            z.regex(DELIVERY_ID, 'must be a webhook-id header value (msg_<32 hex digits>_<webhook id>)'),
          ),
      ),
      "only this delivery's records (the `webhook-id` header a receiver saw)",
    ),
    since: z.optional(instant('records created at or after this time (ISO 8601 with offset)')),
    until: z.optional(instant('records created at or before this time (ISO 8601 with offset)')),
  })
  .check(
    z.refine((q) => q.since === undefined || q.until === undefined || q.until >= q.since, {
      message: 'must not be before since',
      path: ['until'],
    }),
  );
export type HistoryQuery = z.output<typeof HistoryQuerySchema>;

/** The answer of `GET /webhooks/history`: built for the OpenAPI document only (ADR 0021). */
export const historyPageSchema = lazySchema(() =>
  z.object({
    count: described(z.int(), 'records matching the filters (all pages)'),
    records: z.array(HistoryRecordSchema),
  }),
);
export type HistoryPage = z.infer<ReturnType<typeof historyPageSchema>>;
