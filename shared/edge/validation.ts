import * as z from 'zod';
import { BadRequestError } from './errors';

/** Formats zod issues as `path: message; …` without echoing input values (they may be secrets). */
export function describeIssues(issues: readonly z.core.$ZodIssue[], limit = 10): string {
  const parts = issues.slice(0, limit).map((issue) => {
    const path = issue.path.length > 0 ? issue.path.map(String).join('.') : '(body)';
    if (issue.code === 'unrecognized_keys') return `${path}: unknown field(s) ${issue.keys.join(', ')}`;
    return `${path}: ${issue.message}`;
  });
  if (issues.length > limit) parts.push(`and ${issues.length - limit} more`);
  return parts.join('; ');
}

/** Parses with a zod schema, turning failures into a 400 naming every offending field. */
export function parseWith<S extends z.ZodType>(schema: S, value: unknown, what = 'request'): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) {
    throw new BadRequestError(`invalid ${what}: ${describeIssues(result.error.issues)}`);
  }
  return result.data;
}

/**
 * A path id: a positive integer in canonical form (no sign, leading zeros or exponent) that
 * fits a safe integer. Larger values would lose precision and DynamoDB's marshaller refuses
 * them, so they must be a 400 here rather than a 500 later.
 */
export const idParam = () =>
  z
    .string()
    .regex(/^[1-9][0-9]{0,15}$/, 'must be a positive integer')
    .refine((v) => Number.isSafeInteger(Number(v)), {
      message: `must be a positive integer no larger than ${Number.MAX_SAFE_INTEGER}`,
    });
