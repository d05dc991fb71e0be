/** The schema of every error answer, for the contracts and the OpenAPI document (`./errors.ts` maps errors to it). */
import * as z from 'zod';

/** The body of every error answer (documented once in the OpenAPI document). */
export const ErrorBodySchema = z
  .looseObject({
    statusCode: z.number().int().min(400).max(599),
    error: z.string(),
    message: z.string(),
  })
  .meta({
    id: 'Error',
    description:
      'Every error response: status, status text and a message. Some errors carry details as further fields (validationResults, attributes, status, createdWebhooks, errors); the responses that do document them.',
  });
