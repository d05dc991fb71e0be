/**
 * The contracts of an ordered webhook's ordering-key routes (ADR 0020): list the keys that are
 * not flowing, resume one, skip its head. Apart from ./contracts.ts, which holds the webhook
 * model's routes, so that these functions build only what they read.
 */
import * as z from 'zod/mini';
import type { RouteContract } from '../../catalog/contract';
import { ErrorBodySchema } from '../../edge/error-body';
import { documentedAs, idParam, queryInt } from '../../edge/validation';
import { MAX_ORDERING_KEY_LENGTH, ORDERING_KEY, orderingKeySchema } from '../../notifications/ordering-key';
import { described, withMeta } from '../../schema-meta';

/** Keys per page at most (and by default). */
const MAX_ORDERING_KEYS_PAGE = 100;

const KeyParamsSchema = z.object({
  id: idParam(),
  key: described(
    orderingKeySchema(),
    'the ordering key, percent-encoded in the path (a `/` as `%2F`, a `%` as `%25`)',
  ),
});

const OrderingKeyViewSchema = withMeta(
  z.object({
    key: described(z.string(), 'the ordering key'),
    state: described(
      z.enum(['parked', 'held', 'draining']),
      '`parked`: its head ran out of the retry schedule; `held`: its webhook stayed disabled; `draining`: resumed or skipped, its waiting notifications are being sent in order',
    ),
    waiting: described(z.int(), "the key's deliveries waiting to be sent, its head included"),
    headDeliveryId: described(z.string(), 'the `webhook-id` of the delivery at its head when it stopped'),
    parkedAt: described(z.string(), 'when it was parked or held'),
    lastError: described(z.optional(z.string()), "why the head's last attempt failed (parked keys)"),
  }),
  { id: 'WebhookOrderingKey', description: "An ordered webhook's key that is not flowing." },
);
export type OrderingKeyView = z.infer<typeof OrderingKeyViewSchema>;

/** A page position: the last key of the page, base64url-encoded. */
const keyToken = documentedAs(
  z.pipe(
    z.string().check(z.maxLength(256)),
    z.transform((token, ctx) => {
      const key = Buffer.from(token, 'base64url').toString('utf8');
      const valid = key.length <= MAX_ORDERING_KEY_LENGTH && ORDERING_KEY.test(key);
      if (!valid)
        ctx.issues.push({ code: 'custom', input: token, message: 'not a nextToken this API returned' });
      return key;
    }),
  ),
  { type: 'string', maxLength: 256, description: 'the previous page’s nextToken' },
);

const OrderingKeysQuerySchema = z.strictObject({
  state: described(
    z.optional(z.enum(['parked', 'held', 'draining'])),
    'only keys in this state (default: every key that is not flowing)',
  ),
  pageSize: described(
    z._default(queryInt(1, MAX_ORDERING_KEYS_PAGE), MAX_ORDERING_KEYS_PAGE),
    `keys per page (default ${MAX_ORDERING_KEYS_PAGE})`,
  ),
  nextToken: z.optional(keyToken),
});

const SkipBodySchema = withMeta(
  z.strictObject({
    headDeliveryId: described(
      z.optional(z.string().check(z.minLength(1), z.maxLength(100))),
      'skip only if this is still the head (the `headDeliveryId` the list showed); otherwise 409',
    ),
  }),
  { id: 'WebhookOrderingKeySkip' },
);

const notFound = {
  description: 'No such webhook visible to the caller, or the key is not parked (or held).',
  schema: ErrorBodySchema,
};

export const orderingKeyContracts = {
  'GET /webhooks/{id}/ordering-keys': {
    params: z.object({ id: idParam() }),
    query: OrderingKeysQuerySchema,
    responses: {
      200: {
        description:
          "One page of the webhook's keys that are not flowing, in key order (a flowing key is not listed).",
        schema: withMeta(
          z.object({
            keys: z.array(OrderingKeyViewSchema),
            nextToken: described(z.optional(z.string()), 'absent on the last page'),
          }),
          { id: 'WebhookOrderingKeyPage' },
        ),
      },
      404: { description: 'No such webhook visible to the caller.', schema: ErrorBodySchema },
    },
  },
  'POST /webhooks/{id}/ordering-keys/{key}/resume': {
    params: KeyParamsSchema,
    responses: {
      202: {
        description:
          'The key is draining: its head is tried again (its retry schedule starts over) and its waiting notifications follow in order.',
        schema: OrderingKeyViewSchema,
      },
      404: notFound,
    },
  },
  'POST /webhooks/{id}/ordering-keys/{key}/skip': {
    params: KeyParamsSchema,
    body: SkipBodySchema,
    bodyRequired: false,
    responses: {
      202: {
        description:
          'The head is given up (recorded in the history with `keySkipped`, never sent) and the rest of the key follows in order.',
        schema: z.extend(OrderingKeyViewSchema, {
          skippedDeliveryId: described(z.string(), 'the `webhook-id` of the delivery given up'),
        }),
      },
      404: notFound,
      409: {
        description: '`headDeliveryId` is no longer the head of the key.',
        schema: ErrorBodySchema,
      },
    },
  },
} satisfies Record<string, RouteContract>;
