/**
 * Request/response contracts per route key, for the OpenAPI document. Every route in the
 * route table must have exactly one entry here (a test enforces it). The schemas are the same
 * zod schemas the handlers validate with.
 */
import * as z from 'zod';
import { PrincipalSchema } from '../../shared/auth/permissions';
import { integrationContracts } from '../../shared/integrations/api';
import { scriptContracts } from '../../shared/platforms/api';
import { webhookContracts } from '../../shared/webhooks/api';
import type { RouteKey } from '../catalog/routes';

export const ErrorBodySchema = z
  .object({
    statusCode: z.number().int(),
    error: z.string(),
    message: z.string(),
  })
  .meta({ id: 'Error', description: 'Every error response: status, status text and a message.' });

export interface ResponseContract {
  description: string;
  schema?: z.ZodType;
  /** Defaults to application/json. */
  contentTypes?: readonly string[];
}

export interface RouteContract {
  params?: z.ZodObject;
  query?: z.ZodObject;
  body?: z.ZodType;
  /** Media types accepted for the body (default application/json). */
  bodyTypes?: readonly string[];
  /** Whether the body must be sent (default true). */
  bodyRequired?: boolean;
  responses: Record<number, ResponseContract>;
}

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
