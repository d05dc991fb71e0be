/**
 * The contract of `POST /integrations/{id}/regenerate`. It stands apart from the integration
 * routes' other contracts (`./contracts.ts`, whose bodies are every type's payload schema), so the
 * function behind it builds none of the seven types' schemas at init (ADR 0021). Spread into
 * `contracts` in shared/openapi/contracts.ts.
 */
import * as z from 'zod/mini';
import type { RouteContract } from '../../catalog/contract';
import { lazySchema } from '../../lazy-schema';
import { withMeta } from '../../schema-meta';
import { conflict, IntegrationIdParamsSchema } from './contract-parts';

/** The answer: built for the OpenAPI document only. */
const regenerateResponseSchema = lazySchema(() =>
  withMeta(z.object({ id: z.string(), apiKey: z.string(), configurationSnippet: z.string() }), {
    id: 'FederatedSqlKey',
  }),
);
export type RegenerateResponse = z.infer<ReturnType<typeof regenerateResponseSchema>>;

export const regenerateContracts = {
  'POST /integrations/{id}/regenerate': {
    params: IntegrationIdParamsSchema,
    responses: {
      200: {
        description: 'A new cluster API key and snippet, shown once.',
        schema: regenerateResponseSchema,
      },
      400: { description: 'The integration is not FederatedSql.' },
      404: { description: 'No integration with the id.' },
      409: conflict('The integration is not enabled.'),
    },
  },
} satisfies Record<string, RouteContract>;
