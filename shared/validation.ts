/** zod issues as messages that name the field, never the value (it may be a secret). */
import * as z from 'zod';
import { InvalidInputError } from './errors';

/**
 * The service's wording where zod's default is parser talk: a missing field is "required"
 * (not "Invalid input: expected string, received undefined"), a missing discriminator
 * "required (one of …)". A schema's own message still
 * wins; anything else keeps zod's wording. Set once for the process, here, because every
 * message the service gives goes through `describeIssues` below, so this module is loaded
 * wherever a request part, an entry or a record is checked.
 */
const issueWording: z.core.$ZodErrorMap = (issue) => {
  if (issue.code === 'invalid_type' && issue.input === undefined) return 'required';
  // A discriminated union whose discriminator is absent (the issue's input is the whole object).
  const { discriminator, options } = issue as { discriminator?: unknown; options?: unknown };
  const input = issue.input as Record<string, unknown> | undefined;
  if (
    issue.code === 'invalid_union' &&
    typeof discriminator === 'string' &&
    Array.isArray(options) &&
    input !== null &&
    typeof input === 'object' &&
    input[discriminator] === undefined
  )
    return `required (one of ${options.map(String).join(', ')})`;
  return undefined;
};
z.config({ customError: issueWording });

export interface IssueLabels {
  /** How an issue about the whole value is labelled (default `(body)`). */
  root?: string;
  /** Put before every field path (e.g. `query.`). */
  prefix?: string;
  /** Issues listed before "and N more" (default 10). */
  limit?: number;
}

/** Names listed in one message: the first few, each shortened, then how many more. */
const MAX_NAMES = 10;
const MAX_NAME_LENGTH = 100;

/** A whole message stays small whatever the body held (a 5 MB body must not give a 3 MB answer). */
const MAX_MESSAGE_LENGTH = 2000;

function shortened(text: string, max = 2 * MAX_NAME_LENGTH): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

function listed(names: readonly string[]): string {
  const shown = names.slice(0, MAX_NAMES).map((n) => shortened(n, MAX_NAME_LENGTH));
  return names.length > MAX_NAMES
    ? `${shown.join(', ')} and ${names.length - MAX_NAMES} more`
    : shown.join(', ');
}

/** Formats zod issues as `path: message; …` without echoing input values (they may be secrets). */
export function describeIssues(issues: readonly z.core.$ZodIssue[], labels: IssueLabels = {}): string {
  const { root = '(body)', prefix = '', limit = 10 } = labels;
  const parts = issues.slice(0, limit).map((issue) => {
    const path = issue.path.length > 0 ? `${prefix}${shortened(issue.path.map(String).join('.'))}` : root;
    if (issue.code === 'unrecognized_keys') return `${path}: unknown field(s) ${listed(issue.keys)}`;
    return `${path}: ${issue.message}`;
  });
  if (issues.length > limit) parts.push(`and ${issues.length - limit} more`);
  return shortened(parts.join('; '), MAX_MESSAGE_LENGTH);
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
