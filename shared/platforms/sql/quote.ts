/**
 * Quoting and escaping of identifiers and string literals, for every SQL dialect the service
 * writes. Every identifier and literal in every generated statement goes through these
 * functions, so no config value can end a quoted token early: the closing quote character is
 * doubled (or escaped) and values a dialect cannot represent safely are refused with an
 * `UnsafeSqlValueError` before any SQL is produced. How each dialect quotes, escapes and folds
 * names is its module's (`./dialects/`); this file holds the rules every dialect shares.
 *
 * Identifiers must be non-empty and contain no control characters (no newline can hide a
 * second statement in a comment line of the rendered script); literals must not contain NUL.
 */
import { UnsafeSqlValueError } from './dialect';
import { type Dialect, dialectOf } from './dialects';

export { UnsafeSqlValueError } from './dialect';
export type { Dialect } from './dialects';

// biome-ignore lint/suspicious/noControlCharactersInRegex: we are detecting control characters
const CONTROL = /[\u0000-\u001f\u007f]/;
const SIMPLE = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** Maximum identifier length we emit (the longest any of the platforms accepts is 255). */
const MAX_IDENTIFIER = 255;

function checkIdentifier(value: string, what: string): void {
  if (value.length === 0) throw new UnsafeSqlValueError(`${what} must not be empty`);
  if (value.length > MAX_IDENTIFIER)
    throw new UnsafeSqlValueError(`${what} is longer than ${MAX_IDENTIFIER} characters`);
  if (CONTROL.test(value)) throw new UnsafeSqlValueError(`${what} must not contain control characters`);
}

/**
 * The name as the platform stores it. A config value written like a plain identifier
 * (`compute_wh`) means the name the platform folds it to (Snowflake: upper case, PostgreSQL and
 * Redshift: lower case), so it is folded before quoting. Anything else (mixed punctuation,
 * spaces, quotes) is taken verbatim, case and all.
 */
export function normalizeIdentifier(dialect: Dialect, value: string): string {
  return SIMPLE.test(value) ? dialectOf(dialect).foldPlain(value) : value;
}

export function quoteIdent(dialect: Dialect, value: string, what = 'identifier'): string {
  checkIdentifier(value, what);
  return dialectOf(dialect).quoteName(normalizeIdentifier(dialect, value));
}

/** A dotted name (`database.schema`), each part quoted separately. */
export function quoteQualified(dialect: Dialect, parts: readonly string[], what = 'identifier'): string {
  return parts.map((p) => quoteIdent(dialect, p, what)).join('.');
}

export function quoteLiteral(dialect: Dialect, value: string, what = 'value'): string {
  if (value.includes('\u0000')) throw new UnsafeSqlValueError(`${what} must not contain NUL characters`);
  return dialectOf(dialect).quoteLiteral(value, what);
}

/** Whether two names are one as the platform resolves names. */
export function sameIdentifier(dialect: Dialect, a: string, b: string): boolean {
  const na = normalizeIdentifier(dialect, a);
  const nb = normalizeIdentifier(dialect, b);
  return dialectOf(dialect).caseInsensitiveNames ? na.toLowerCase() === nb.toLowerCase() : na === nb;
}
