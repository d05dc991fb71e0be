/**
 * Quoting and escaping of identifiers and string literals for the four SQL dialects the
 * service writes. Every identifier and literal in every generated statement goes through
 * these functions, so no config value can end a quoted token early: the closing quote
 * character is doubled (or escaped) and values a dialect cannot represent safely are refused
 * with an `UnsafeSqlValueError` before any SQL is produced.
 *
 * - `cloud` (CloudWarehouse, Snowflake-like): identifiers in double quotes (`"` doubled);
 *   string literals in single quotes with `'` doubled and `\` doubled (backslash is an escape
 *   character inside Snowflake strings).
 * - `cluster` (ClusterWarehouse, PostgreSQL/Redshift family): identifiers in double quotes
 *   (`"` doubled); literals in single quotes with `'` doubled. Backslashes in literals are
 *   refused: PostgreSQL (standard_conforming_strings on) reads them literally, Redshift reads
 *   them as escapes, so no spelling means the same on both (Redshift refuses them in passwords
 *   anyway).
 * - `tsql` (AnalyticsWarehouse): identifiers in brackets (`]` doubled); literals as Unicode
 *   `N'…'` with `'` doubled.
 * - `lakehouse` (Databricks SQL): identifiers in backticks (`` ` `` doubled); literals in
 *   single quotes with `\` and `'` escaped by a backslash (Databricks strings honour escapes).
 *
 * Identifiers must be non-empty and contain no control characters (no newline can hide a
 * second statement in a comment line of the rendered script); literals must not contain NUL.
 */

export type Dialect = 'cloud' | 'cluster' | 'tsql' | 'lakehouse';

export class UnsafeSqlValueError extends Error {
  override name = 'UnsafeSqlValueError';
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: we are detecting control characters
const CONTROL = /[\u0000-\u001f\u007f]/;
const SIMPLE = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** Maximum identifier length we emit (the longest any of the four platforms accepts is 255). */
const MAX_IDENTIFIER = 255;

function checkIdentifier(value: string, what: string): void {
  if (value.length === 0) throw new UnsafeSqlValueError(`${what} must not be empty`);
  if (value.length > MAX_IDENTIFIER)
    throw new UnsafeSqlValueError(`${what} is longer than ${MAX_IDENTIFIER} characters`);
  if (CONTROL.test(value)) throw new UnsafeSqlValueError(`${what} must not contain control characters`);
}

/**
 * The name as the platform stores it. Snowflake folds unquoted names to upper case and
 * PostgreSQL/Redshift to lower case; a config value written like a plain identifier
 * (`compute_wh`) means the folded name, so we fold it before quoting. Anything else (mixed
 * punctuation, spaces, quotes) is taken verbatim, case and all.
 */
export function normalizeIdentifier(dialect: Dialect, value: string): string {
  if (!SIMPLE.test(value)) return value;
  if (dialect === 'cloud') return value.toUpperCase();
  if (dialect === 'cluster') return value.toLowerCase();
  return value;
}

export function quoteIdent(dialect: Dialect, value: string, what = 'identifier'): string {
  checkIdentifier(value, what);
  const name = normalizeIdentifier(dialect, value);
  switch (dialect) {
    case 'cloud':
    case 'cluster':
      return `"${name.replaceAll('"', '""')}"`;
    case 'tsql':
      return `[${name.replaceAll(']', ']]')}]`;
    case 'lakehouse':
      return `\`${name.replaceAll('`', '``')}\``;
  }
}

/** A dotted name (`database.schema`), each part quoted separately. */
export function quoteQualified(dialect: Dialect, parts: readonly string[], what = 'identifier'): string {
  return parts.map((p) => quoteIdent(dialect, p, what)).join('.');
}

export function quoteLiteral(dialect: Dialect, value: string, what = 'value'): string {
  if (value.includes('\u0000')) throw new UnsafeSqlValueError(`${what} must not contain NUL characters`);
  switch (dialect) {
    case 'cloud':
      return `'${value.replaceAll('\\', '\\\\').replaceAll("'", "''")}'`;
    case 'cluster':
      if (value.includes('\\'))
        throw new UnsafeSqlValueError(`${what} must not contain backslashes on this platform`);
      return `'${value.replaceAll("'", "''")}'`;
    case 'tsql':
      return `N'${value.replaceAll("'", "''")}'`;
    case 'lakehouse':
      return `'${value.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;
  }
}

/** Identifier-case-insensitive comparison as the platform resolves names. */
export function sameIdentifier(dialect: Dialect, a: string, b: string): boolean {
  const na = normalizeIdentifier(dialect, a);
  const nb = normalizeIdentifier(dialect, b);
  return dialect === 'tsql' || dialect === 'lakehouse' ? na.toLowerCase() === nb.toLowerCase() : na === nb;
}
