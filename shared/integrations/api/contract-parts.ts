/**
 * Pieces the integration routes' contracts share (`./contracts.ts`, `./regenerate-contract.ts`,
 * `./script-contracts.ts`), apart from the contracts themselves so a route whose contract stands
 * alone does not build every integration schema at init (ADR 0021).
 */
import * as z from 'zod/mini';
import { ErrorBodySchema } from '../../edge/error-body';
import { idParam } from '../../edge/validation';
import { lazySchema } from '../../lazy-schema';
import { IntegrationStatusSchema } from '../lifecycle';

export const IntegrationIdParamsSchema = z.object({ id: idParam() });

/**
 * 409: the integration's state does not allow the operation; `status` is its current status when
 * known (an answer's schema: built for the OpenAPI document only).
 */
export const conflict = (description: string) => ({
  description,
  schema: lazySchema(() => z.extend(ErrorBodySchema, { status: z.optional(IntegrationStatusSchema) })),
});
