/**
 * The contract of `GET /webhooks/actions`, which answers the notification catalog. It sits
 * with the catalog, not with the webhooks' contracts, so the function behind it bundles the
 * catalog and none of the webhook model's schemas (`docs/benchmarks.md`, figure 5).
 */
import * as z from 'zod/mini';
import type { RouteContract } from '../catalog/contract';
import { lazySchema } from '../lazy-schema';

export const notificationContracts = {
  'GET /webhooks/actions': {
    responses: {
      200: {
        description: 'ALL_NOTIFICATIONS and every notification name.',
        // An answer's schema: built for the OpenAPI document only (ADR 0021).
        schema: lazySchema(() => z.array(z.string())),
      },
    },
  },
} satisfies Record<string, RouteContract>;
