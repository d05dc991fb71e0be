/**
 * Request/response contracts per route key, for the OpenAPI document. Every route in the
 * route table must have exactly one entry here (a test enforces it). The schemas are the same
 * zod schemas the handlers validate with.
 */
import * as z from 'zod';
import { PrincipalSchema } from '../auth/permissions';
import type { RouteContract } from '../catalog/contract';
import type { RouteKey } from '../catalog/routes';
import { integrationContracts } from '../integrations/api';
import { scriptContracts } from '../platforms/api';
import { webhookContracts } from '../webhooks/api';

export const ErrorBodySchema = z
  .object({
    statusCode: z.number().int(),
    error: z.string(),
    message: z.string(),
  })
  .meta({ id: 'Error', description: 'Every error response: status, status text and a message.' });

const platformContracts: Record<string, RouteContract> = {
  'GET /health': {
    responses: {
      200: {
        description: 'The service is up and can reach its tables.',
        schema: z.object({ status: z.literal('ok'), service: z.string(), time: z.string() }),
      },
    },
  },
  'GET /openapi.json': {
    responses: { 200: { description: 'This document.', schema: z.record(z.string(), z.unknown()) } },
  },
  'GET /me': {
    responses: { 200: { description: 'The caller.', schema: PrincipalSchema } },
  },
};

/**
 * Each capability adds its own record here (`integrationContracts`, `scriptContracts`,
 * `webhookContracts`), exported from the capability's `api.ts` in `shared/`.
 */
export const contracts: Record<RouteKey, RouteContract> = {
  ...platformContracts,
  ...integrationContracts,
  ...scriptContracts,
  ...webhookContracts,
};
