/**
 * The contract of `POST /webhooks/filters/preview`. It stands apart from the webhooks' other
 * contracts (`./contracts.ts`, which build the whole webhook model), so the function behind it
 * builds only these schemas at init (`docs/benchmarks.md`, figure 5), as `GET /webhooks/actions`
 * does with `shared/notifications/contracts.ts`. Spread into `contracts` in shared/openapi/contracts.ts.
 */
import * as z from 'zod/mini';
import type { RouteContract } from '../../catalog/contract';
import { NOTIFICATION_NAMES } from '../../notifications/catalog';
import { notificationName } from '../../notifications/name-schema';
import { described, withMeta } from '../../schema-meta';
import { filter } from '../fields';

const MAX_PREVIEW_LIMIT = 1000;

/** `POST /webhooks/filters/preview`. */
const FilterPreviewRequestSchema = withMeta(
  z.strictObject({
    filter,
    notificationType: described(
      z.optional(notificationName(NOTIFICATION_NAMES)),
      'only notifications of this type (and the filter is checked against its metadata)',
    ),
    limit: described(
      z._default(z.number().check(z.int(), z.gte(1), z.lte(MAX_PREVIEW_LIMIT)), 100),
      `the newest notifications to evaluate the filter against (default 100, at most ${MAX_PREVIEW_LIMIT})`,
    ),
  }),
  { id: 'WebhookFilterPreviewRequest' },
);
export type FilterPreviewRequest = z.output<typeof FilterPreviewRequestSchema>;

const FilterPreviewSchema = withMeta(
  z.object({
    evaluated: described(z.int(), 'notifications the filter was evaluated against'),
    matched: described(z.int(), '… for which it is true: a webhook with it would receive them'),
    notMatched: described(z.int(), '… for which it is not (false, or an error)'),
    errors: described(z.int(), '… of those, where the evaluation failed (no match)'),
    matching: described(
      z.array(z.int()),
      'the `webhooksActivityId` of each matching notification, newest first',
    ),
    notMatching: described(
      z.array(z.int()),
      'the `webhooksActivityId` of each notification not matched, newest first',
    ),
    failures: described(
      z.array(
        z.object({
          webhooksActivityId: z.int(),
          notificationType: z.string(),
          error: described(z.string(), 'why the evaluation failed, e.g. `No such key: dataSourceId`'),
        }),
      ),
      'the evaluation error of each notification where it failed',
    ),
  }),
  {
    id: 'WebhookFilterPreview',
    description:
      "What the filter matches among the newest notifications the caller may see (from the delivery history's stored requests, each notification once).",
  },
);
export type FilterPreview = z.infer<typeof FilterPreviewSchema>;

export const filterPreviewContracts = {
  'POST /webhooks/filters/preview': {
    body: FilterPreviewRequestSchema,
    responses: {
      200: { description: 'The counts and the notifications matched and not.', schema: FilterPreviewSchema },
    },
  },
} satisfies Record<string, RouteContract>;
