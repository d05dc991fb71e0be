/** The schema of every error answer, for the contracts and the OpenAPI document (`./errors.ts` maps errors to it). */
import * as z from 'zod/mini';
import { withMeta } from '../schema-meta';

/** The body of every error answer (documented once in the OpenAPI document). */
export const ErrorBodySchema = withMeta(
  z.looseObject({
    statusCode: z.int().check(z.gte(400), z.lte(599)),
    error: z.string(),
    message: z.string(),
  }),
  {
    id: 'Error',
    description:
      'Every error response: status, status text and a message. Some errors carry details as further fields (validationResults, attributes, status, createdWebhooks, errors); the responses that do document them.',
  },
);
