/**
 * `cluster` (ClusterWarehouse, PostgreSQL/Redshift family): unquoted names fold to lower case and
 * compare exactly; identifiers in double quotes (`"` doubled); literals in single quotes with `'`
 * doubled. Backslashes in literals are refused: PostgreSQL (standard_conforming_strings on) reads
 * them literally, Redshift as escapes, so no spelling means the same on both (Redshift refuses
 * them in passwords anyway).
 */
import { type SqlDialect, UnsafeSqlValueError } from '../dialect';

export const cluster: SqlDialect = {
  foldPlain: (value) => value.toLowerCase(),
  quoteName: (name) => `"${name.replaceAll('"', '""')}"`,
  quoteLiteral: (value, what) => {
    if (value.includes('\\'))
      throw new UnsafeSqlValueError(`${what} must not contain backslashes on this platform`);
    return `'${value.replaceAll("'", "''")}'`;
  },
  caseInsensitiveNames: false,
  parser: 'postgresql',
  sandbox: {
    identifierQuotes: { open: '"', close: '"' },
    backslashEscapes: false,
    doubledQuoteEscapes: true,
    nationalStrings: false,
    plainName: (word) => word.toLowerCase(),
    scopes: { user: 'global', group: 'global', database: 'global', schema: 'database' },
    schemaParent: 'database',
    // A session is always inside a database the service created.
    schemasNeedSessionDatabase: true,
    oneWordSecurables: false,
    // CREATE USER u PASSWORD 'p' | PASSWORD DISABLED
    createUser(r, db, user) {
      r.expect('PASSWORD');
      if (r.accept('DISABLED')) {
        r.end();
        return db.op.create('user', user, { passwordDisabled: true });
      }
      const password = r.string();
      r.end();
      db.op.create('user', user, { password });
    },
  },
};
