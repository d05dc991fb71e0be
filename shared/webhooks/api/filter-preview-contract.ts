/**
 * The contract of `POST /webhooks/filters/preview`. It stands apart from the webhooks' other
 * contracts (`./contracts.ts`, which build the whole webhook model), so the function behind it
 * builds only these schemas at init (`docs/benchmarks.md`, figure 5), as `GET /webhooks/actions`
 * does with `shared/notifications/contracts.ts`. Spread into `contracts` in shared/openapi/contracts.ts.
 */
import * as z from 'zod';
import type { RouteContract } from '../../catalog/contract';
import { NOTIFICATION_NAMES } from '../../notifications/catalog';
import { notificationName } from '../../notifications/name-schema';
import { filter } from '../fields';

const MAX_PREVIEW_LIMIT = 1000;

/** `POST /webhooks/filters/preview`. */
const FilterPreviewRequestSchema = z
  .strictObject({
    filter,
    notificationType: notificationName(NOTIFICATION_NAMES)
      .optional()
      .describe('only notifications of this type (and the filter is checked against its metadata)'),
    limit: z
      .number()
      .int()
      .min(1)
      .max(MAX_PREVIEW_LIMIT)
      .default(100)
      .describe(
        `the newest notifications to evaluate the filter against (default 100, at most ${MAX_PREVIEW_LIMIT})`,
      ),
  })
  .meta({ id: 'WebhookFilterPreviewRequest' });
export type FilterPreviewRequest = z.output<typeof FilterPreviewRequestSchema>;

const FilterPreviewSchema = z
  .object({
    evaluated: z.number().int().describe('notifications the filter was evaluated against'),
    matched: z.number().int().describe('… for which it is true: a webhook with it would receive them'),
    notMatched: z.number().int().describe('… for which it is not (false, or an error)'),
    errors: z.number().int().describe('… of those, where the evaluation failed (no match)'),
    matching: z
      .array(z.number().int())
      .describe('the `webhooksActivityId` of each matching notification, newest first'),
    notMatching: z
      .array(z.number().int())
      .describe('the `webhooksActivityId` of each notification not matched, newest first'),
    failures: z
      .array(
        z.object({
          webhooksActivityId: z.number().int(),
          notificationType: z.string(),
          error: z.string().describe('why the evaluation failed, e.g. `No such key: dataSourceId`'),
        }),
      )
      .describe('the evaluation error of each notification where it failed'),
  })
  .meta({
    id: 'WebhookFilterPreview',
    description:
      "What the filter matches among the newest notifications the caller may see (from the delivery history's stored requests, each notification once).",
  });
export type FilterPreview = z.infer<typeof FilterPreviewSchema>;

export const filterPreviewContracts = {
  'POST /webhooks/filters/preview': {
    body: FilterPreviewRequestSchema,
    responses: {
      200: { description: 'The counts and the notifications matched and not.', schema: FilterPreviewSchema },
    },
  },
} satisfies Record<string, RouteContract>;
