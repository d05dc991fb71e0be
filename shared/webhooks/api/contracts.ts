/**
 * The webhooks routes' request and response contracts (the handlers validate with the same
 * schemas). Spread into `contracts` in shared/openapi/contracts.ts.
 */
import * as z from 'zod';
import type { RouteContract } from '../../catalog/contract';
import { ErrorBodySchema } from '../../edge/errors';
import {
  CreateWebhooksBodySchema,
  CreateWebhooksResponseSchema,
  HistoryPageSchema,
  HistoryQuerySchema,
  HistoryRecordSchema,
  IdParamSchema,
  MAX_WEBHOOKS_PER_REQUEST,
  WebhookInputSchema,
  WebhookListQuerySchema,
  WebhookPageSchema,
  WebhookViewSchema,
} from '../model';

const notFound = { description: 'No such webhook visible to the caller.', schema: ErrorBodySchema };

export const webhookContracts = {
  'POST /webhooks': {
    body: CreateWebhooksBodySchema,
    documentedBody: CreateWebhooksBodySchema.extend({
      webhooks: z.array(WebhookInputSchema).min(1).max(MAX_WEBHOOKS_PER_REQUEST),
    }),
    responses: {
      201: {
        description:
          'At least one webhook was created; `errors` names every rejected entry (by index) and why.',
        schema: CreateWebhooksResponseSchema,
      },
      422: {
        description: 'No webhook was created; `errors` says why for each entry.',
        schema: ErrorBodySchema.extend(CreateWebhooksResponseSchema.shape),
      },
    },
  },
  'GET /webhooks': {
    query: WebhookListQuerySchema,
    responses: {
      200: {
        description:
          'Admins: every webhook; others: their own. Without paging parameters, all of them as an array ' +
          '(the original answer); with `pageSize` or `nextToken`, one page `{webhooks, nextToken}` ' +
          '(owners’ pages in id order, admins’ in storage order).',
        schema: z.union([z.array(WebhookViewSchema), WebhookPageSchema]),
      },
    },
  },
  'GET /webhooks/actions': {
    responses: {
      200: {
        description: 'ALL_NOTIFICATIONS and every notification name.',
        schema: z.array(z.string()),
      },
    },
  },
  'GET /webhooks/history': {
    query: HistoryQuerySchema,
    responses: {
      200: {
        description: 'One page of the caller’s history and the total count.',
        schema: HistoryPageSchema,
      },
    },
  },
  'GET /webhooks/{id}': {
    params: IdParamSchema,
    responses: { 200: { description: 'The webhook.', schema: WebhookViewSchema }, 404: notFound },
  },
  'DELETE /webhooks/{id}': {
    params: IdParamSchema,
    responses: { 200: { description: 'The deleted webhook.', schema: WebhookViewSchema }, 404: notFound },
  },
  'POST /webhooks/history/retry/{id}': {
    params: IdParamSchema,
    responses: {
      201: {
        description: 'The new history record of the re-sent request.',
        schema: HistoryRecordSchema.extend({ retryOf: z.number().int() }),
      },
      404: {
        description: 'No such history record visible to the caller, or its webhook is gone.',
        schema: ErrorBodySchema,
      },
      429: {
        description:
          "The caller's manual retries in the current window reached the stage's limit (or the sender is at its concurrency limit); the Retry-After header gives the seconds to wait.",
        schema: ErrorBodySchema,
      },
    },
  },
} satisfies Record<string, RouteContract>;
