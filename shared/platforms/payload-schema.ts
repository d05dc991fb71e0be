/**
 * The create/update body's schema, built when this module is imported: for the integration
 * routes' contracts, which validate bodies against it. Functions that only ask a type's module
 * for its facts import `./index.ts` alone and build no payload schema at init (ADR 0021).
 */
import { integrationPayloadSchema } from '.';

export const IntegrationPayloadSchema = integrationPayloadSchema();
