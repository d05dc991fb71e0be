import type * as z from 'zod';
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
