/**
 * CloudWarehouse (Snowflake-like) setup, edit and removal statements.
 *
 * Objects the service creates:
 * - the role `SERVICE_SYSTEM_ROLE` (the system role), granted to the system user;
 * - the system user (manual setup with password or key-pair authentication: the config's user;
 *   with key pairs the public key is derived from the configured private key, so the script
 *   never needs the private key itself); with oAuth the identity provider maps the client to
 *   a user, so no user statements are generated;
 * - the database `config.database` with schemas `METADATA` and `POLICIES`, plus `AUDIT`
 *   (audit enabled) and `LINEAGE` (lineage enabled), all owned by the system role;
 * - grants to the system role: usage on the default warehouse; APPLY MASKING POLICY and APPLY
 *   ROW ACCESS POLICY on the account; imported privileges on the `SNOWFLAKE` database (audit or
 *   lineage: access history); APPLY TAG (lineage); CREATE DATABASE on the account and usage
 *   with grant option on each workspace warehouse (workspaces);
 * - the impersonation role `config.impersonation.role`, owned by the system role (enabled).
 *
 * With `autoBootstrap` the config's user exists and may use the privileged `config.role`; the
 * service runs these statements as that user under that role, minus the user creation.
 */
import { createPrivateKey, createPublicKey } from 'node:crypto';
import { quoteIdent, quoteLiteral, quoteQualified, sameIdentifier } from '../sql/quote';
import { type Script, ScriptInputError, script } from '../sql/script';
import type { CloudWarehouseConfig } from './schema';

export type { CloudWarehouseConfig };
export interface CloudWarehouseSetup {
  autoBootstrap: boolean;
  config: CloudWarehouseConfig;
}

export const CLOUD_SYSTEM_ROLE = 'SERVICE_SYSTEM_ROLE';
export const CLOUD_BASE_SCHEMAS = ['METADATA', 'POLICIES'] as const;
export const CLOUD_AUDIT_SCHEMA = 'AUDIT';
export const CLOUD_LINEAGE_SCHEMA = 'LINEAGE';
/** The platform's shared database holding account usage views (access history). */
export const CLOUD_ACCOUNT_USAGE_DATABASE = 'SNOWFLAKE';

const id = (value: string, what: string) => quoteIdent('cloud', value, what);
const lit = (value: string, what: string) => quoteLiteral('cloud', value, what);
const ROLE = id(CLOUD_SYSTEM_ROLE, 'role');

/** The config's private key (new lines written as `\n`) → base64 DER public key for RSA_PUBLIC_KEY. */
export function publicKeyOf(privateKey: string): string {
  try {
    const pem = privateKey.replaceAll('\\n', '\n');
    const key = createPublicKey(createPrivateKey(pem));
    return key.export({ type: 'spki', format: 'der' }).toString('base64');
  } catch {
    throw new ScriptInputError('config.privateKey is not a readable PEM private key');
  }
}

export function cloudSystemUser(config: CloudWarehouseConfig): string | undefined {
  return config.authenticationType === 'oAuth' ? undefined : config.username;
}

export function cloudSchemas(config: CloudWarehouseConfig): string[] {
  const schemas: string[] = [...CLOUD_BASE_SCHEMAS];
  if (config.audit.enabled) schemas.push(CLOUD_AUDIT_SCHEMA);
  if (config.lineage.enabled) schemas.push(CLOUD_LINEAGE_SCHEMA);
  return schemas;
}

const needsAccountUsage = (c: CloudWarehouseConfig) => c.audit.enabled || c.lineage.enabled;
const workspaceWarehouses = (c: CloudWarehouseConfig) =>
  c.workspaces.enabled ? c.workspaces.warehouses : [];

function credentialClause(config: CloudWarehouseConfig): string {
  if (config.authenticationType === 'userPassword')
    return `PASSWORD = ${lit(config.password, 'password')} MUST_CHANGE_PASSWORD = FALSE`;
  if (config.authenticationType === 'keyPair')
    return `RSA_PUBLIC_KEY = ${lit(publicKeyOf(config.privateKey), 'public key')}`;
  return '';
}

function userStatements({ autoBootstrap, config }: CloudWarehouseSetup): string[] {
  const name = cloudSystemUser(config);
  if (name === undefined) return [];
  const user = id(name, 'username');
  const defaults = `DEFAULT_ROLE = ${ROLE} DEFAULT_WAREHOUSE = ${id(config.warehouse, 'warehouse')}`;
  return [
    autoBootstrap
      ? `ALTER USER ${user} SET ${defaults}`
      : `CREATE USER ${user} ${credentialClause(config)} ${defaults}`,
    `GRANT ROLE ${ROLE} TO USER ${user}`,
  ];
}

function schemaStatements(config: CloudWarehouseConfig, schema: string): string[] {
  const name = quoteQualified('cloud', [config.database, schema], 'schema');
  return [`CREATE SCHEMA ${name}`, `GRANT OWNERSHIP ON SCHEMA ${name} TO ROLE ${ROLE}`];
}

export function createScript(setup: CloudWarehouseSetup): Script {
  const { config } = setup;
  const db = id(config.database, 'database');
  const out = [
    `CREATE ROLE ${ROLE}`,
    `CREATE DATABASE ${db}`,
    `GRANT OWNERSHIP ON DATABASE ${db} TO ROLE ${ROLE}`,
  ];
  for (const schema of cloudSchemas(config)) out.push(...schemaStatements(config, schema));
  out.push(
    `GRANT USAGE ON WAREHOUSE ${id(config.warehouse, 'warehouse')} TO ROLE ${ROLE}`,
    `GRANT APPLY MASKING POLICY ON ACCOUNT TO ROLE ${ROLE}`,
    `GRANT APPLY ROW ACCESS POLICY ON ACCOUNT TO ROLE ${ROLE}`,
  );
  if (needsAccountUsage(config))
    out.push(
      `GRANT IMPORTED PRIVILEGES ON DATABASE ${id(CLOUD_ACCOUNT_USAGE_DATABASE, 'database')} TO ROLE ${ROLE}`,
    );
  if (config.lineage.enabled) out.push(`GRANT APPLY TAG ON ACCOUNT TO ROLE ${ROLE}`);
  if (config.workspaces.enabled) {
    out.push(`GRANT CREATE DATABASE ON ACCOUNT TO ROLE ${ROLE}`);
    for (const wh of config.workspaces.warehouses)
      out.push(`GRANT USAGE ON WAREHOUSE ${id(wh, 'warehouse')} TO ROLE ${ROLE} WITH GRANT OPTION`);
  }
  if (config.impersonation.enabled) {
    const imp = id(config.impersonation.role, 'impersonation role');
    out.push(`CREATE ROLE ${imp}`, `GRANT OWNERSHIP ON ROLE ${imp} TO ROLE ${ROLE}`);
  }
  out.push(...userStatements(setup));
  return script('CloudWarehouse setup', [
    {
      note: setup.autoBootstrap
        ? 'Run under the privileged role.'
        : 'Run with a role that may create roles, users and databases and manage grants (e.g. ACCOUNTADMIN).',
      statements: out,
    },
  ]);
}

export function deleteScript({ autoBootstrap, config }: CloudWarehouseSetup): Script {
  const out: string[] = [];
  if (config.impersonation.enabled)
    out.push(`DROP ROLE ${id(config.impersonation.role, 'impersonation role')}`);
  const name = cloudSystemUser(config);
  if (name !== undefined) {
    out.push(
      autoBootstrap
        ? `REVOKE ROLE ${ROLE} FROM USER ${id(name, 'username')}`
        : `DROP USER ${id(name, 'username')}`,
    );
  }
  // Dropping the database drops its schemas; dropping the role drops every grant made to it.
  out.push(`DROP DATABASE ${id(config.database, 'database')}`, `DROP ROLE ${ROLE}`);
  return script('CloudWarehouse removal', [
    {
      note: 'Run with a role that owns the service objects or may drop them (e.g. ACCOUNTADMIN).',
      statements: out,
    },
  ]);
}

function credentialEdit(previous: CloudWarehouseSetup, next: CloudWarehouseSetup): string[] {
  const prev = previous.config;
  const cfg = next.config;
  const oldName = cloudSystemUser(prev);
  const newName = cloudSystemUser(cfg);
  if (oldName === undefined && newName === undefined) return [];
  if (oldName === undefined) return userStatements(next);
  if (newName === undefined) return deleteUser(previous, oldName);
  const renamed = !sameIdentifier('cloud', oldName, newName);
  if (next.autoBootstrap) {
    // The user is the operator's; only the role grant and defaults follow it.
    if (!renamed) return [];
    return [`REVOKE ROLE ${ROLE} FROM USER ${id(oldName, 'username')}`, ...userStatements(next)];
  }
  const user = id(newName, 'username');
  const out: string[] = [];
  if (renamed) out.push(`ALTER USER ${id(oldName, 'username')} RENAME TO ${user}`);
  if (cfg.authenticationType === 'userPassword') {
    if (prev.authenticationType !== 'userPassword' || prev.password !== cfg.password)
      out.push(`ALTER USER ${user} SET PASSWORD = ${lit(cfg.password, 'password')}`);
    if (prev.authenticationType === 'keyPair') out.push(`ALTER USER ${user} UNSET RSA_PUBLIC_KEY`);
  } else if (cfg.authenticationType === 'keyPair') {
    if (prev.authenticationType !== 'keyPair' || prev.privateKey !== cfg.privateKey)
      out.push(`ALTER USER ${user} SET RSA_PUBLIC_KEY = ${lit(publicKeyOf(cfg.privateKey), 'public key')}`);
    if (prev.authenticationType === 'userPassword') out.push(`ALTER USER ${user} UNSET PASSWORD`);
  }
  return out;
}

function deleteUser(previous: CloudWarehouseSetup, name: string): string[] {
  const user = id(name, 'username');
  return previous.autoBootstrap ? [`REVOKE ROLE ${ROLE} FROM USER ${user}`] : [`DROP USER ${user}`];
}

/** Only what the change requires (`host` and `database` are non-editable). */
export function editScript(previous: CloudWarehouseSetup, next: CloudWarehouseSetup): Script {
  const prev = previous.config;
  const cfg = next.config;
  const out: string[] = [];
  if (!sameIdentifier('cloud', prev.warehouse, cfg.warehouse)) {
    out.push(`GRANT USAGE ON WAREHOUSE ${id(cfg.warehouse, 'warehouse')} TO ROLE ${ROLE}`);
    const stillWorkspace = workspaceWarehouses(cfg).some((w) => sameIdentifier('cloud', w, prev.warehouse));
    if (!stillWorkspace)
      out.push(`REVOKE USAGE ON WAREHOUSE ${id(prev.warehouse, 'warehouse')} FROM ROLE ${ROLE}`);
  }
  const oldSchemas = cloudSchemas(prev);
  const newSchemas = cloudSchemas(cfg);
  for (const s of newSchemas) if (!oldSchemas.includes(s)) out.push(...schemaStatements(cfg, s));
  for (const s of oldSchemas)
    if (!newSchemas.includes(s))
      out.push(`DROP SCHEMA ${quoteQualified('cloud', [cfg.database, s], 'schema')}`);
  const usage = id(CLOUD_ACCOUNT_USAGE_DATABASE, 'database');
  if (!needsAccountUsage(prev) && needsAccountUsage(cfg))
    out.push(`GRANT IMPORTED PRIVILEGES ON DATABASE ${usage} TO ROLE ${ROLE}`);
  if (needsAccountUsage(prev) && !needsAccountUsage(cfg))
    out.push(`REVOKE IMPORTED PRIVILEGES ON DATABASE ${usage} FROM ROLE ${ROLE}`);
  if (!prev.lineage.enabled && cfg.lineage.enabled) out.push(`GRANT APPLY TAG ON ACCOUNT TO ROLE ${ROLE}`);
  if (prev.lineage.enabled && !cfg.lineage.enabled) out.push(`REVOKE APPLY TAG ON ACCOUNT FROM ROLE ${ROLE}`);
  if (!prev.workspaces.enabled && cfg.workspaces.enabled)
    out.push(`GRANT CREATE DATABASE ON ACCOUNT TO ROLE ${ROLE}`);
  if (prev.workspaces.enabled && !cfg.workspaces.enabled)
    out.push(`REVOKE CREATE DATABASE ON ACCOUNT FROM ROLE ${ROLE}`);
  const oldWs = workspaceWarehouses(prev);
  const newWs = workspaceWarehouses(cfg);
  for (const w of newWs)
    if (!oldWs.some((o) => sameIdentifier('cloud', o, w)))
      out.push(`GRANT USAGE ON WAREHOUSE ${id(w, 'warehouse')} TO ROLE ${ROLE} WITH GRANT OPTION`);
  for (const w of oldWs)
    if (!newWs.some((n) => sameIdentifier('cloud', n, w))) {
      // Revoking the grant option only keeps plain usage on the (new) default warehouse.
      const isDefault = sameIdentifier('cloud', w, cfg.warehouse);
      out.push(
        isDefault
          ? `REVOKE GRANT OPTION FOR USAGE ON WAREHOUSE ${id(w, 'warehouse')} FROM ROLE ${ROLE}`
          : `REVOKE USAGE ON WAREHOUSE ${id(w, 'warehouse')} FROM ROLE ${ROLE}`,
      );
    }
  const wasOn = prev.impersonation.enabled;
  const isOn = cfg.impersonation.enabled;
  if (!wasOn && isOn) {
    const imp = id(cfg.impersonation.role, 'impersonation role');
    out.push(`CREATE ROLE ${imp}`, `GRANT OWNERSHIP ON ROLE ${imp} TO ROLE ${ROLE}`);
  } else if (wasOn && !isOn) {
    out.push(`DROP ROLE ${id(prev.impersonation.role, 'impersonation role')}`);
  } else if (wasOn && isOn && !sameIdentifier('cloud', prev.impersonation.role, cfg.impersonation.role)) {
    out.push(
      `ALTER ROLE ${id(prev.impersonation.role, 'impersonation role')} RENAME TO ${id(cfg.impersonation.role, 'impersonation role')}`,
    );
  }
  out.push(...credentialEdit(previous, next));
  const user = cloudSystemUser(cfg);
  const oldUser = cloudSystemUser(prev);
  if (
    user !== undefined &&
    oldUser !== undefined &&
    sameIdentifier('cloud', user, oldUser) &&
    !sameIdentifier('cloud', prev.warehouse, cfg.warehouse)
  )
    out.push(`ALTER USER ${id(user, 'username')} SET DEFAULT_WAREHOUSE = ${id(cfg.warehouse, 'warehouse')}`);
  return script('CloudWarehouse edit', [{ note: 'Run with the role used for setup.', statements: out }]);
}
