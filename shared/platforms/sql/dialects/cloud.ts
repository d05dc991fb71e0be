/**
 * `cloud` (CloudWarehouse, Snowflake-like): unquoted names fold to upper case and compare
 * exactly; identifiers in double quotes (`"` doubled); string literals in single quotes with `'`
 * doubled and `\` doubled (a backslash is an escape character inside Snowflake strings).
 */
import type { SqlDialect } from '../dialect';

export const cloud: SqlDialect = {
  foldPlain: (value) => value.toUpperCase(),
  quoteName: (name) => `"${name.replaceAll('"', '""')}"`,
  quoteLiteral: (value) => `'${value.replaceAll('\\', '\\\\').replaceAll("'", "''")}'`,
  caseInsensitiveNames: false,
  parser: 'snowflake',
  sandbox: {
    identifierQuotes: { open: '"', close: '"' },
    backslashEscapes: true,
    doubledQuoteEscapes: true,
    nationalStrings: false,
    plainName: (word) => word,
    scopes: { user: 'global', role: 'global', database: 'global', schema: 'global' },
    schemaParent: 'database',
    schemasNeedSessionDatabase: false,
    oneWordSecurables: false,
    // The account's shared database of metadata views.
    implicitSecurable: (kind, parts) =>
      kind === 'database' && parts.at(-1) === 'SNOWFLAKE' ? 'database:SNOWFLAKE' : undefined,
  },
};
