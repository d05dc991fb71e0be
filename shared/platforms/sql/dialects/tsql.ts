/**
 * `tsql` (AnalyticsWarehouse): names kept as written and compared without regard to case;
 * identifiers in brackets (`]` doubled); literals as Unicode `N'…'` with `'` doubled.
 */
import type { SqlDialect } from '../dialect';

export const tsql: SqlDialect = {
  foldPlain: (value) => value,
  quoteName: (name) => `[${name.replaceAll(']', ']]')}]`,
  quoteLiteral: (value) => `N'${value.replaceAll("'", "''")}'`,
  caseInsensitiveNames: true,
  parser: 'transactsql',
  sandbox: {
    identifierQuotes: { open: '[', close: ']' },
    backslashEscapes: false,
    doubledQuoteEscapes: true,
    nationalStrings: true,
    plainName: (word) => word.toLowerCase(),
    scopes: { login: 'global', user: 'database', role: 'database', schema: 'database' },
    schemaParent: 'database',
    schemasNeedSessionDatabase: false,
    oneWordSecurables: true,
    // CREATE USER u FOR LOGIN l: a database user maps a server login, which must exist.
    createUser(r, db, user) {
      r.expect('FOR', 'LOGIN');
      const login = r.one();
      r.end();
      db.op.needObject('login', login);
      db.op.create('user', user, { login });
    },
    // The cleanup's drop-the-schema's-views batch: the sandbox keeps no views.
    ignores: (sql) => /^\s*DECLARE @drop /i.test(sql),
  },
};
