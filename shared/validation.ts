/** zod issues as messages that name the field, never the value (it may be a secret). */
import type * as z from 'zod';
import { InvalidInputError } from './errors';

export interface IssueLabels {
  /** How an issue about the whole value is labelled (default `(body)`). */
  root?: string;
  /** Put before every field path (e.g. `query.`). */
  prefix?: string;
  /** Issues listed before "and N more" (default 10). */
  limit?: number;
}

/** Formats zod issues as `path: message; …` without echoing input values (they may be secrets). */
export function describeIssues(issues: readonly z.core.$ZodIssue[], labels: IssueLabels = {}): string {
  const { root = '(body)', prefix = '', limit = 10 } = labels;
  const parts = issues.slice(0, limit).map((issue) => {
    const path = issue.path.length > 0 ? `${prefix}${issue.path.map(String).join('.')}` : root;
    if (issue.code === 'unrecognized_keys') return `${path}: unknown field(s) ${issue.keys.join(', ')}`;
    return `${path}: ${issue.message}`;
  });
  if (issues.length > limit) parts.push(`and ${issues.length - limit} more`);
  return parts.join('; ');
}

/**
 * Parses with a zod schema, turning failures into an InvalidInputError naming every offending
 * field. For values that are not request parts (stored records, nested entries checked one by
 * one); request parts are validated by the edge against the route contract.
 */
export function parseWith<S extends z.ZodType>(schema: S, value: unknown, what = 'request'): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) {
    throw new InvalidInputError(`invalid ${what}: ${describeIssues(result.error.issues)}`);
  }
  return result.data;
}
