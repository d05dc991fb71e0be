/**
 * The shape of a route's contract: what its path, query and body must look like and what it
 * answers. Each capability declares the contracts of its routes next to its schemas
 * (`shared/<capability>/api.ts`, declared with `satisfies` so their schema types survive); the
 * API edge (`shared/edge/handler.ts`) validates every request against them before a handler
 * runs and hands the handler the parsed, typed values; the OpenAPI document is generated from
 * the same objects.
 *
 * Types only: every Lambda bundle may import this file.
 */
import type * as z from 'zod/mini';

/** A request body format: which media types select it and how to parse it. */
interface BodyFormat {
  /** The media type named in the OpenAPI document and in 415 messages. */
  readonly mediaType: string;
  /** Whether a request's media type (undefined when absent) selects this format. */
  accepts(mediaType: string | undefined): boolean;
  parse(text: string): unknown;
}

interface ResponseContract {
  description: string;
  /**
   * The answer's shape, for the OpenAPI document only (handlers never parse their answers). A
   * `lazySchema` thunk is taken as it is, so a function's init does not build the schemas of its
   * answers (ADR 0021).
   */
  schema?: z.ZodMiniType | (() => z.ZodMiniType);
  /** Defaults to application/json. */
  contentTypes?: readonly string[];
}

export interface RouteContract {
  /** Path parameters (strings as they arrive; the schema converts them). */
  params?: z.ZodMiniObject;
  /** Query string parameters (strings as they arrive; the schema converts them). */
  query?: z.ZodMiniObject;
  /** The body the edge validates before the handler runs. */
  body?: z.ZodMiniType;
  /**
   * The body as documented, when the route checks part of it itself: POST /webhooks validates
   * the envelope at the edge and each entry on its own, so invalid entries are reported one by
   * one while the valid ones are still created.
   */
  documentedBody?: z.ZodMiniType;
  /** Body formats accepted (default JSON only). Formats are objects so only routes that accept YAML bundle its parser. */
  bodyFormats?: readonly BodyFormat[];
  /** Whether the body must be sent (default true when there is a body schema). */
  bodyRequired?: boolean;
  responses: Record<number, ResponseContract>;
}
