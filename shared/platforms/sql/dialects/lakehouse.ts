/**
 * `lakehouse` (Databricks SQL): names kept as written and compared without regard to case;
 * identifiers in backticks (`` ` `` doubled); literals in single quotes with `\` and `'` escaped
 * by a backslash (Databricks strings honour escapes).
 */
import type { SqlDialect } from '../dialect';

export const lakehouse: SqlDialect = {
  foldPlain: (value) => value,
  quoteName: (name) => `\`${name.replaceAll('`', '``')}\``,
  quoteLiteral: (value) => `'${value.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`,
  caseInsensitiveNames: true,
  parser: 'hive',
  sandbox: {
    identifierQuotes: { open: '`', close: '`' },
    backslashEscapes: true,
    doubledQuoteEscapes: false,
    nationalStrings: false,
    plainName: (word) => word.toLowerCase(),
    scopes: { catalog: 'global', schema: 'global' },
    schemaParent: 'catalog',
    schemasNeedSessionDatabase: false,
    oneWordSecurables: true,
    // The metastore's own `system` catalog and its schemas (audit tables).
    implicitSecurable: (kind, parts) => {
      const [first] = parts;
      if (kind === 'catalog' && parts.length === 1 && first?.toLowerCase() === 'system')
        return 'catalog:system';
      if (kind === 'schema' && parts.length === 2 && first?.toLowerCase() === 'system')
        return `schema:${parts.join('.')}`;
      return undefined;
    },
  },
};
