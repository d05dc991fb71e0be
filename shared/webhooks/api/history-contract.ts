/**
 * The contract of `GET /webhooks/history`. It stands apart from the webhooks' other contracts
 * (`./contracts.ts`, which build the whole webhook model), so the function behind it builds only
 * the history's shapes at init (ADR 0021), as `POST /webhooks/filters/preview` does with
 * `./filter-preview-contract.ts`. Spread into `contracts` in shared/openapi/contracts.ts.
 */
import type { RouteContract } from '../../catalog/contract';
import { HistoryQuerySchema, historyPageSchema } from '../history-model';

export const historyContracts = {
  'GET /webhooks/history': {
    query: HistoryQuerySchema,
    responses: {
      200: {
        description: 'One page of the caller’s history and the total count.',
        schema: historyPageSchema,
      },
    },
  },
} satisfies Record<string, RouteContract>;
