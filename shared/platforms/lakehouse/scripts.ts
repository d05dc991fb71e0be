/**
 * Lakehouse (Databricks-SQL-like) setup, edit and removal statements.
 *
 * Objects the service creates:
 * - the catalog `config.catalog` for the service's internal data, closed to `account users`,
 *   owned by the service principal, with schema `metadata` (and `audit` when audit is enabled);
 * - with audit enabled: USE CATALOG on `system` and USE SCHEMA + SELECT on `system.access` (the
 *   audit log tables) for the service principal.
 *
 * The service principal is named only with OAuth machine-to-machine authentication (its client
 * id). With a token, the principal is whoever the token belongs to: automatic setup runs as
 * that principal, so it owns what it creates and reads the system tables through its own
 * grants; a manual script for token authentication must be run as that principal.
 * The exemption group (`groupPattern.deny`) is an account-level group managed in the account
 * console, not through SQL; changing it changes no remote object (policies are pushed again).
 */

import { quoteIdent, quoteLiteral, quoteQualified } from '../sql/quote';
import { type Script, script } from '../sql/script';
import type { LakehouseConfig } from './schema';

export type { LakehouseConfig };
export interface LakehouseSetup {
  autoBootstrap: boolean;
  config: LakehouseConfig;
}

export const LAKEHOUSE_SCHEMAS = ['metadata'] as const;
export const LAKEHOUSE_AUDIT_SCHEMA = 'audit';
const ALL_USERS = 'account users';

const id = (value: string, what: string) => quoteIdent('lakehouse', value, what);

export function servicePrincipal(config: LakehouseConfig): string | undefined {
  return config.authenticationType === 'oAuthM2M' ? config.oAuthClientConfig.clientId : undefined;
}

function auditGrants(principal: string): string[] {
  const p = id(principal, 'service principal');
  return [
    `GRANT USE CATALOG ON CATALOG ${id('system', 'catalog')} TO ${p}`,
    `GRANT USE SCHEMA, SELECT ON SCHEMA ${quoteQualified('lakehouse', ['system', 'access'], 'schema')} TO ${p}`,
  ];
}
function auditRevokes(principal: string): string[] {
  const p = id(principal, 'service principal');
  return [
    `REVOKE USE SCHEMA, SELECT ON SCHEMA ${quoteQualified('lakehouse', ['system', 'access'], 'schema')} FROM ${p}`,
    `REVOKE USE CATALOG ON CATALOG ${id('system', 'catalog')} FROM ${p}`,
  ];
}

export function createScript({ config }: LakehouseSetup): Script {
  const catalog = id(config.catalog, 'catalog');
  const principal = servicePrincipal(config);
  const out = [
    `CREATE CATALOG ${catalog} COMMENT ${quoteLiteral('lakehouse', 'Internal data of the access-policy service', 'comment')}`,
    `REVOKE ALL PRIVILEGES ON CATALOG ${catalog} FROM ${id(ALL_USERS, 'group')}`,
  ];
  for (const schema of LAKEHOUSE_SCHEMAS)
    out.push(`CREATE SCHEMA ${quoteQualified('lakehouse', [config.catalog, schema], 'schema')}`);
  if (config.audit.enabled) {
    out.push(
      `CREATE SCHEMA ${quoteQualified('lakehouse', [config.catalog, LAKEHOUSE_AUDIT_SCHEMA], 'schema')}`,
    );
    if (principal !== undefined) out.push(...auditGrants(principal));
  }
  if (principal !== undefined)
    out.push(`ALTER CATALOG ${catalog} OWNER TO ${id(principal, 'service principal')}`);
  return script('Lakehouse setup', [
    {
      note:
        principal === undefined
          ? 'Run as the service principal the token belongs to (a metastore admin or a user with CREATE CATALOG).'
          : 'Run as a metastore admin.',
      statements: out,
    },
  ]);
}

export function deleteScript({ config }: LakehouseSetup): Script {
  const principal = servicePrincipal(config);
  const out: string[] = [];
  if (config.audit.enabled && principal !== undefined) out.push(...auditRevokes(principal));
  out.push(`DROP CATALOG ${id(config.catalog, 'catalog')} CASCADE`);
  return script('Lakehouse removal', [
    { note: 'Run as the catalog owner or a metastore admin.', statements: out },
  ]);
}

/** Only what the change requires (`workspaceUrl` and `catalog` are non-editable). */
export function editScript(previous: LakehouseSetup, next: LakehouseSetup): Script {
  const prev = previous.config;
  const cfg = next.config;
  const catalog = id(cfg.catalog, 'catalog');
  const oldP = servicePrincipal(prev);
  const newP = servicePrincipal(cfg);
  const out: string[] = [];
  const auditSchema = quoteQualified('lakehouse', [cfg.catalog, LAKEHOUSE_AUDIT_SCHEMA], 'schema');
  if (!prev.audit.enabled && cfg.audit.enabled) out.push(`CREATE SCHEMA ${auditSchema}`);
  if (prev.audit.enabled && oldP !== undefined && (!cfg.audit.enabled || oldP !== newP))
    out.push(...auditRevokes(oldP));
  if (cfg.audit.enabled && newP !== undefined && (!prev.audit.enabled || oldP !== newP))
    out.push(...auditGrants(newP));
  if (prev.audit.enabled && !cfg.audit.enabled) out.push(`DROP SCHEMA ${auditSchema} CASCADE`);
  if (newP !== undefined && newP !== oldP)
    out.push(`ALTER CATALOG ${catalog} OWNER TO ${id(newP, 'service principal')}`);
  return script('Lakehouse edit', [
    { note: 'Run as the catalog owner or a metastore admin.', statements: out },
  ]);
}
