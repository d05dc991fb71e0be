/** zod issues as messages that name the field, never the value (it may be a secret). */
import * as z from 'zod/mini';
import { InvalidInputError } from './errors';

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

/**
 * Hints for fields a schema refuses on purpose, shown with "unknown field(s)": a PATCH that sends
 * `secret` learns where a secret is changed. Kept beside the schema objects, not in their
 * metadata, so the OpenAPI document does not carry them.
 */
const unknownFieldHints = new WeakMap<object, Readonly<Record<string, string>>>();

/** Registers what to say when `schema` (a strict object) meets one of these field names. */
export function withUnknownFieldHints<S extends z.ZodMiniObject>(
  schema: S,
  hints: Record<string, string>,
): S {
  unknownFieldHints.set(schema, hints);
  return schema;
}

const TYPE_WORDS: Record<string, string> = {
  boolean: 'must be true or false',
  number: 'must be a number',
  int: 'must be an integer',
  bigint: 'must be an integer',
  string: 'must be a string',
  object: 'must be an object',
  array: 'must be a list',
  date: 'must be a date',
  null: 'must be null',
  literal: 'has the wrong value',
  never: 'is not allowed here',
  undefined: 'is not allowed here',
};

function typeWords(expected: string): string {
  return TYPE_WORDS[expected] ?? `must be ${/^[aeiou]/.test(expected) ? 'an' : 'a'} ${expected}`;
}

function oneOf(values: readonly unknown[]): string {
  const shown = values.map((v) => (typeof v === 'string' ? v : JSON.stringify(v)));
  if (shown.length === 2 && shown.includes('true') && shown.includes('false')) return 'must be true or false';
  if (shown.length === 1) return `must be ${shown[0]}`;
  return `must be one of ${listed(shown)}`;
}

const FORMAT_WORDS: Record<string, string> = {
  datetime:
    'must be an ISO 8601 date and time with a time zone, such as 2026-01-31T09:00:00Z or 2026-01-31T10:00:00+01:00',
  date: 'must be a date such as 2026-01-31',
  time: 'must be a time such as 09:00:00',
  duration: 'must be an ISO 8601 duration such as PT5M',
  email: 'must be an email address',
  url: 'must be a URL',
  uuid: 'must be a UUID',
  ipv4: 'must be an IPv4 address',
  ipv6: 'must be an IPv6 address',
  base64: 'must be base64',
  base64url: 'must be base64url',
  json_string: 'must be a JSON string',
};

type SizeOrigin = 'string' | 'array' | 'set' | 'map' | 'file';
const UNITS: Record<SizeOrigin, [string, string]> = {
  string: ['character', 'characters'],
  array: ['entry', 'entries'],
  set: ['entry', 'entries'],
  map: ['entry', 'entries'],
  file: ['byte', 'bytes'],
};

function count(n: number | bigint, [one, many]: [string, string]): string {
  return `${n} ${Number(n) === 1 ? one : many}`;
}

function tooSmall(origin: string, minimum: number | bigint, inclusive: boolean | undefined): string {
  const unit = UNITS[origin as SizeOrigin];
  if (unit) {
    if (origin === 'string' && Number(minimum) === 1) return 'must not be empty';
    return `must have at least ${count(inclusive === false ? Number(minimum) + 1 : minimum, unit)}`;
  }
  const noun = origin === 'date' ? 'on or after' : 'at least';
  return inclusive === false
    ? `must be ${origin === 'date' ? 'after' : 'greater than'} ${minimum}`
    : `must be ${noun} ${minimum}`;
}

function tooBig(origin: string, maximum: number | bigint, inclusive: boolean | undefined): string {
  const unit = UNITS[origin as SizeOrigin];
  if (unit) return `must have at most ${count(inclusive === false ? Number(maximum) - 1 : maximum, unit)}`;
  const noun = origin === 'date' ? 'on or before' : 'at most';
  return inclusive === false
    ? `must be ${origin === 'date' ? 'before' : 'less than'} ${maximum}`
    : `must be ${noun} ${maximum}`;
}

/** The branches of a union that failed only on the value's type: "must be a string or a number". */
function unionWords(errors: readonly (readonly z.core.$ZodIssue[])[] | undefined): string {
  const expected = (errors ?? []).map((branch) =>
    branch.length === 1 && branch[0]?.code === 'invalid_type' && branch[0].path.length === 0
      ? branch[0].expected
      : undefined,
  );
  if (expected.length > 0 && expected.every((e) => e !== undefined)) {
    const words = [...new Set(expected.map((e) => typeWords(e).replace(/^must be /, '')))];
    return `must be ${words.join(' or ')}`;
  }
  return 'matches none of the allowed forms';
}

/**
 * The service's wording for every kind of zod issue, in place of zod's parser talk ("Invalid
 * input: expected boolean, received string", "Too small: expected number to be >0"): a missing
 * field is "required", a wrong type says what the field must be, a bound names the bound, an
 * enum lists its values. A schema's own message still wins. Set once for the process, here,
 * because every message the service gives goes through `describeIssues` below, so this module is
 * loaded wherever a request part, an entry or a record is checked. Never quotes the input.
 */
const issueWording: z.core.$ZodErrorMap = (issue) => {
  const input = issue.input as unknown;
  // A discriminated union's discriminator: absent, or a value none of the options has.
  const { discriminator, options } = issue as { discriminator?: unknown; options?: unknown };
  if (issue.code === 'invalid_union' && typeof discriminator === 'string' && Array.isArray(options)) {
    const value =
      input !== null && typeof input === 'object'
        ? (input as Record<string, unknown>)[discriminator]
        : undefined;
    return value === undefined ? `required (one of ${listed(options.map(String))})` : oneOf(options);
  }
  if (input === undefined && issue.code !== 'unrecognized_keys' && issue.code !== 'custom') return 'required';
  switch (issue.code) {
    case 'invalid_type':
      if (issue.expected === 'number' && typeof input === 'number') return 'must be a finite number';
      return typeWords(issue.expected);
    case 'invalid_value':
      return oneOf(issue.values);
    case 'too_small':
      return tooSmall(issue.origin, issue.minimum, issue.inclusive);
    case 'too_big':
      return tooBig(issue.origin, issue.maximum, issue.inclusive);
    case 'invalid_format': {
      const format = issue.format as string;
      const { prefix, suffix, includes } = issue as { prefix?: string; suffix?: string; includes?: string };
      if (format === 'starts_with' && prefix !== undefined) return `must start with "${prefix}"`;
      if (format === 'ends_with' && suffix !== undefined) return `must end with "${suffix}"`;
      if (format === 'includes' && includes !== undefined) return `must contain "${includes}"`;
      return FORMAT_WORDS[format] ?? 'is not in the expected format';
    }
    case 'not_multiple_of':
      return `must be a multiple of ${issue.divisor}`;
    case 'unrecognized_keys': {
      const hints = issue.inst ? unknownFieldHints.get(issue.inst) : undefined;
      const hinted = issue.keys.flatMap((k) => hints?.[k] ?? []);
      return `unknown field(s) ${listed(issue.keys)}${hinted.length > 0 ? ` (${hinted.join('; ')})` : ''}`;
    }
    case 'invalid_union':
      return unionWords((issue as { errors?: z.core.$ZodIssue[][] }).errors);
    case 'invalid_key':
      return 'has a key that is not allowed';
    case 'invalid_element':
      return 'has a value that is not allowed';
    default:
      return 'is not valid';
  }
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

/** Formats zod issues as `path: message; …` without echoing input values (they may be secrets). */
export function describeIssues(issues: readonly z.core.$ZodIssue[], labels: IssueLabels = {}): string {
  const { root = '(body)', prefix = '', limit = 10 } = labels;
  const parts = issues.slice(0, limit).map((issue) => {
    const path = issue.path.length > 0 ? `${prefix}${shortened(issue.path.map(String).join('.'))}` : root;
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
export function parseWith<S extends z.ZodMiniType>(schema: S, value: unknown, what = 'request'): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) {
    throw new InvalidInputError(`invalid ${what}: ${describeIssues(result.error.issues)}`);
  }
  return result.data;
}
