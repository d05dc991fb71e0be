/**
 * Path and query parameter schemas shared by the route contracts. Parameters arrive as strings;
 * the schemas parse them, while the OpenAPI document shows what they carry (an integer with its
 * bounds, a boolean), so typed clients take `{id: 5}` and `includeGlobal: true`.
 */
import * as z from 'zod/mini';
import { withMeta } from '../schema-meta';

/** Documents `schema` as `rendered` (the JSON Schema of the value a caller means). */
export function documentedAs<T extends z.ZodMiniType>(schema: T, rendered: Record<string, unknown>): T {
  return withMeta(schema, {
    override: ({ jsonSchema }: { jsonSchema: Record<string, unknown> }) => {
      for (const key of Object.keys(jsonSchema)) delete jsonSchema[key];
      Object.assign(jsonSchema, rendered);
    },
  });
}

/**
 * A path id: a positive integer in canonical form (no sign, leading zeros or exponent) that
 * fits a safe integer. Larger values would lose precision and DynamoDB's marshaller refuses
 * them, so they must be a 400 here rather than a 500 later. Parsed to a number.
 */
export const idParam = () =>
  documentedAs(
    z.pipe(
      z.string().check(
        // `abort`: a value that is no integer at all gets one message, not this and the next.
        z.regex(/^[1-9][0-9]{0,15}$/, { message: 'must be a positive integer', abort: true }),
        z.refine((v) => Number.isSafeInteger(Number(v)), {
          message: `must be a positive integer no larger than ${Number.MAX_SAFE_INTEGER}`,
        }),
      ),
      z.transform(Number),
    ),
    { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER },
  );

/** A non-negative integer query parameter within [min, max]; a refusal names the range. */
export const queryInt = (min: number, max: number) => {
  const range = `must be an integer from ${min} to ${max}`;
  return documentedAs(
    z.pipe(
      z.pipe(z.string().check(z.regex(/^\d+$/, { message: range, abort: true })), z.transform(Number)),
      z.int(range).check(z.gte(min, range), z.lte(max, range)),
    ),
    { type: 'integer', minimum: min, maximum: max },
  );
};

/** A boolean query parameter: `true` or `false`. */
export const queryBoolean = (options?: { error?: string }) =>
  documentedAs(
    z.pipe(
      z.enum(['true', 'false'], options),
      z.transform((v) => v === 'true'),
    ),
    { type: 'boolean' },
  );
