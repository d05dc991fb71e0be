/**
 * Contracts of the service's own routes: health, the OpenAPI document and the caller's identity.
 */
import * as z from 'zod/mini';
import { principalSchema } from '../auth/permissions';
import type { RouteContract } from '../catalog/contract';
import { lazySchema } from '../lazy-schema';

// Answers only: built when the OpenAPI document is rendered, never at a function's init.
const healthSchema = lazySchema(() =>
  z.object({ status: z.literal('ok'), service: z.string(), time: z.string() }),
);
const documentSchema = lazySchema(() => z.record(z.string(), z.unknown()));

export const serviceContracts = {
  'GET /health': {
    responses: {
      200: { description: 'The service is up and can reach its tables.', schema: healthSchema },
    },
  },
  'GET /openapi.json': {
    responses: { 200: { description: 'This document.', schema: documentSchema } },
  },
  'GET /me': {
    responses: { 200: { description: 'The caller.', schema: principalSchema } },
  },
} satisfies Record<string, RouteContract>;
