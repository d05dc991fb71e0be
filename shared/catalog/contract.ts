/**
 * The shape of a route's contract: what its path, query and body must look like and what it
 * answers. Each capability declares the contracts of its routes next to its schemas
 * (`shared/<capability>/api.ts`); the API edge validates every request against them before a
 * handler runs, and the OpenAPI document is generated from the same objects.
 *
 * Types only: every Lambda bundle may import this file.
 */
import type * as z from 'zod';

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
