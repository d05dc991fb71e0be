/**
 * AnalyticsWarehouse (T-SQL) setup, edit and removal statements, in the platform's two steps:
 * logins live in `master`, users and schemas in the existing database, and a session cannot
 * switch between them.
 *
 * Objects the service creates:
 * - `initial-create` (in master, manual setup only): the login `config.username` with its password;
 * - `create` (in `config.database`): the database user for that login (manual only); the schema
 *   `config.schema` for secure views, owned by the system user; grants CREATE VIEW, CREATE
 *   FUNCTION, SELECT (with grant option, so views can be shared), ALTER ANY SECURITY POLICY and
 *   ALTER ANY MASK to the system user (manual only: with automatic setup the config's user is
 *   already privileged, and the platform refuses grants to oneself); the impersonation role
 *   (enabled), owned by the system user, with SELECT on the schema;
 * - `cleanup` (in the database): the reverse of `create`, dropping the views in the schema first;
 * - `post-cleanup` (in master): drops the login.
 */

import { quoteIdent, quoteLiteral, sameIdentifier } from '../sql/quote';
import { type Script, type ScriptSection, script } from '../sql/script';
import type { AnalyticsWarehouseConfig } from './schema';

export type { AnalyticsWarehouseConfig };
export interface AnalyticsWarehouseSetup {
  autoBootstrap: boolean;
  config: AnalyticsWarehouseConfig;
}

export const MASTER_DATABASE = 'master';
export const ANALYTICS_USER_GRANTS = [
  'CREATE VIEW',
  'CREATE FUNCTION',
  'SELECT',
  'ALTER ANY SECURITY POLICY',
  'ALTER ANY MASK',
] as const;

const id = (value: string, what: string) => quoteIdent('tsql', value, what);
const lit = (value: string, what: string) => quoteLiteral('tsql', value, what);

function masterSection(statements: string[], note: string): ScriptSection {
  return { database: MASTER_DATABASE, note, statements };
}
function databaseSection(setup: AnalyticsWarehouseSetup, statements: string[], note: string): ScriptSection {
  return { database: setup.config.database, note, statements };
}

function loginStatements({ autoBootstrap, config }: AnalyticsWarehouseSetup): string[] {
  if (autoBootstrap) return [];
  return [
    `CREATE LOGIN ${id(config.username, 'username')} WITH PASSWORD = ${lit(config.password, 'password')}`,
  ];
}

function databaseStatements({ autoBootstrap, config }: AnalyticsWarehouseSetup): string[] {
  const user = id(config.username, 'username');
  const schema = id(config.schema, 'schema');
  const out: string[] = [];
  if (!autoBootstrap) out.push(`CREATE USER ${user} FOR LOGIN ${user}`);
  out.push(`CREATE SCHEMA ${schema} AUTHORIZATION ${user}`);
  if (!autoBootstrap)
    for (const grant of ANALYTICS_USER_GRANTS)
      out.push(`GRANT ${grant} TO ${user}${grant === 'SELECT' ? ' WITH GRANT OPTION' : ''}`);
  if (config.impersonation.enabled) {
    const role = id(config.impersonation.role, 'impersonation role');
    out.push(`CREATE ROLE ${role} AUTHORIZATION ${user}`, `GRANT SELECT ON SCHEMA::${schema} TO ${role}`);
  }
  return out;
}

/** Drops every view in the schema (T-SQL has no DROP SCHEMA … CASCADE); names come from the catalog, quoted by QUOTENAME. */
export function dropViewsStatement(schemaName: string): string {
  return (
    `DECLARE @drop NVARCHAR(MAX) = N''; ` +
    `SELECT @drop = @drop + N'DROP VIEW ' + QUOTENAME(s.name) + N'.' + QUOTENAME(v.name) + N'; ' ` +
    `FROM sys.views AS v JOIN sys.schemas AS s ON s.schema_id = v.schema_id WHERE s.name = ${lit(schemaName, 'schema')}; ` +
    'EXEC sp_executesql @drop'
  );
}

function cleanupStatements({ autoBootstrap, config }: AnalyticsWarehouseSetup): string[] {
  const out: string[] = [];
  if (config.impersonation.enabled)
    out.push(`DROP ROLE ${id(config.impersonation.role, 'impersonation role')}`);
  out.push(dropViewsStatement(config.schema), `DROP SCHEMA ${id(config.schema, 'schema')}`);
  if (!autoBootstrap) out.push(`DROP USER ${id(config.username, 'username')}`);
  return out;
}

function postCleanupStatements({ autoBootstrap, config }: AnalyticsWarehouseSetup): string[] {
  return autoBootstrap ? [] : [`DROP LOGIN ${id(config.username, 'username')}`];
}

export function initialCreateScript(setup: AnalyticsWarehouseSetup): Script {
  return script('AnalyticsWarehouse initial setup (step 1 of 2): the login', [
    masterSection(loginStatements(setup), 'Run as a server administrator, connected to master.'),
  ]);
}

export function createStepScript(setup: AnalyticsWarehouseSetup): Script {
  return script('AnalyticsWarehouse setup (step 2 of 2): user, schema and grants', [
    databaseSection(
      setup,
      databaseStatements(setup),
      'Run as the database owner, connected to the database.',
    ),
  ]);
}

export function fullCreateScript(setup: AnalyticsWarehouseSetup): Script {
  return script('AnalyticsWarehouse setup', [
    masterSection(loginStatements(setup), 'The login, in master.'),
    databaseSection(setup, databaseStatements(setup), 'User, schema and grants, in the database.'),
  ]);
}

export function cleanupScript(setup: AnalyticsWarehouseSetup): Script {
  return script('AnalyticsWarehouse removal (step 1 of 2): schema, role and user', [
    databaseSection(setup, cleanupStatements(setup), 'Run as the database owner, connected to the database.'),
  ]);
}

export function postCleanupScript(setup: AnalyticsWarehouseSetup): Script {
  return script('AnalyticsWarehouse removal (step 2 of 2): the login', [
    masterSection(postCleanupStatements(setup), 'Run as a server administrator, connected to master.'),
  ]);
}

/** Both removal steps, for a successfully created integration. */
export function deleteScript(setup: AnalyticsWarehouseSetup): Script {
  return script('AnalyticsWarehouse removal', [
    databaseSection(setup, cleanupStatements(setup), 'Schema, role and user, in the database.'),
    masterSection(postCleanupStatements(setup), 'The login, in master.'),
  ]);
}

/** Only what the change requires (`host`, `database` and `schema` are non-editable). */
export function editScript(previous: AnalyticsWarehouseSetup, next: AnalyticsWarehouseSetup): Script {
  const prev = previous.config;
  const cfg = next.config;
  const master: string[] = [];
  const database: string[] = [];
  const renamed = !sameIdentifier('tsql', prev.username, cfg.username);
  const user = id(cfg.username, 'username');
  if (!next.autoBootstrap) {
    if (renamed) {
      master.push(`ALTER LOGIN ${id(prev.username, 'username')} WITH NAME = ${user}`);
      database.push(`ALTER USER ${id(prev.username, 'username')} WITH NAME = ${user}`);
    }
    if (prev.password !== cfg.password)
      master.push(`ALTER LOGIN ${user} WITH PASSWORD = ${lit(cfg.password, 'password')}`);
  }
  const wasOn = prev.impersonation.enabled;
  const isOn = cfg.impersonation.enabled;
  const schema = id(cfg.schema, 'schema');
  if (!wasOn && isOn) {
    const role = id(cfg.impersonation.role, 'impersonation role');
    database.push(
      `CREATE ROLE ${role} AUTHORIZATION ${user}`,
      `GRANT SELECT ON SCHEMA::${schema} TO ${role}`,
    );
  } else if (wasOn && !isOn) {
    database.push(`DROP ROLE ${id(prev.impersonation.role, 'impersonation role')}`);
  } else if (wasOn && isOn && !sameIdentifier('tsql', prev.impersonation.role, cfg.impersonation.role)) {
    database.push(
      `ALTER ROLE ${id(prev.impersonation.role, 'impersonation role')} WITH NAME = ${id(cfg.impersonation.role, 'impersonation role')}`,
    );
  }
  return script('AnalyticsWarehouse edit', [
    masterSection(master, 'Logins, in master.'),
    databaseSection(next, database, 'Users and roles, in the database.'),
  ]);
}
