/**
 * Contracts of the service's own routes: health, the OpenAPI document and the caller's identity.
 */
import * as z from 'zod/mini';
import { PrincipalSchema } from '../auth/permissions';
import type { RouteContract } from '../catalog/contract';

const HealthSchema = z.object({ status: z.literal('ok'), service: z.string(), time: z.string() });

export const serviceContracts = {
  'GET /health': {
    responses: {
      200: { description: 'The service is up and can reach its tables.', schema: HealthSchema },
    },
  },
  'GET /openapi.json': {
    responses: { 200: { description: 'This document.', schema: z.record(z.string(), z.unknown()) } },
  },
  'GET /me': {
    responses: { 200: { description: 'The caller.', schema: PrincipalSchema } },
  },
} satisfies Record<string, RouteContract>;
