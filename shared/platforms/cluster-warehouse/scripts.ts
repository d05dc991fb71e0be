/**
 * ClusterWarehouse (PostgreSQL/Redshift family) setup, edit and removal statements.
 *
 * Objects the service creates:
 * - the system user (manual setup only: the config's user, with its password; with access-key
 *   or idp authentication the user is created with `PASSWORD DISABLED`, Redshift syntax);
 * - the group `service_system`, with the system user as member;
 * - the managed database `config.database`, owned by the system user, closed to PUBLIC;
 * - schemas `service_metadata` and `service_policies` in it, owned by the system user;
 * - the impersonation group `config.impersonation.role` when impersonation is enabled.
 *
 * With `autoBootstrap` the config's user already exists and holds CREATEDB and CREATEUSER (or is
 * a superuser): the service connects as it, first to `initialDatabase`, and runs the same
 * statements minus the ones that create or drop the user itself.
 */

import { quoteIdent, quoteLiteral, sameIdentifier } from '../sql/quote';
import { type Script, type ScriptSection, script } from '../sql/script';
import type { ClusterWarehouseConfig } from './schema';

export type { ClusterWarehouseConfig };
export interface ClusterWarehouseSetup {
  autoBootstrap: boolean;
  config: ClusterWarehouseConfig;
}

export const CLUSTER_SYSTEM_GROUP = 'service_system';
export const CLUSTER_SCHEMAS = ['service_metadata', 'service_policies'] as const;
const POLICY_SCHEMA = 'service_policies';

const id = (value: string, what: string) => quoteIdent('cluster', value, what);

export function clusterSystemUser(config: ClusterWarehouseConfig): string {
  switch (config.authenticationType) {
    case 'userPassword':
      return config.username;
    case 'accessKey':
      return config.databaseUser;
    case 'idp':
      return config.idp.username;
  }
}

function passwordClause(config: ClusterWarehouseConfig): string {
  return config.authenticationType === 'userPassword'
    ? `PASSWORD ${quoteLiteral('cluster', config.password, 'password')}`
    : 'PASSWORD DISABLED';
}

/** Statements run in the initial database: user, groups, the managed database. */
function initialStatements({ autoBootstrap, config }: ClusterWarehouseSetup): string[] {
  const user = id(clusterSystemUser(config), 'username');
  const group = id(CLUSTER_SYSTEM_GROUP, 'group');
  const db = id(config.database, 'database');
  const out: string[] = [];
  if (!autoBootstrap) out.push(`CREATE USER ${user} ${passwordClause(config)}`);
  out.push(`CREATE GROUP ${group}`, `ALTER GROUP ${group} ADD USER ${user}`);
  out.push(
    `CREATE DATABASE ${db} OWNER ${user}`,
    `REVOKE ALL ON DATABASE ${db} FROM PUBLIC`,
    `GRANT ALL ON DATABASE ${db} TO GROUP ${group}`,
  );
  if (config.impersonation.enabled)
    out.push(`CREATE GROUP ${id(config.impersonation.role, 'impersonation role')}`);
  return out;
}

/** Statements run in the managed database: schemas and their grants. */
function managedStatements({ config }: ClusterWarehouseSetup): string[] {
  const user = id(clusterSystemUser(config), 'username');
  const group = id(CLUSTER_SYSTEM_GROUP, 'group');
  const out: string[] = [];
  for (const schema of CLUSTER_SCHEMAS)
    out.push(`CREATE SCHEMA ${id(schema, 'schema')} AUTHORIZATION ${user}`);
  for (const schema of CLUSTER_SCHEMAS)
    out.push(`GRANT ALL ON SCHEMA ${id(schema, 'schema')} TO GROUP ${group}`);
  if (config.impersonation.enabled)
    out.push(
      `GRANT USAGE ON SCHEMA ${id(POLICY_SCHEMA, 'schema')} TO GROUP ${id(config.impersonation.role, 'impersonation role')}`,
    );
  return out;
}

function initialSection(setup: ClusterWarehouseSetup, statements: string[], note: string): ScriptSection {
  return { database: setup.config.initialDatabase, note, statements };
}

function managedSection(setup: ClusterWarehouseSetup, statements: string[], note: string): ScriptSection {
  return { database: setup.config.database, note, statements };
}

/** Step 1 (`initial-create`): run as a privileged user in an existing database. */
export function initialCreateScript(setup: ClusterWarehouseSetup): Script {
  return script('ClusterWarehouse initial setup: system user, groups and the managed database', [
    initialSection(
      setup,
      initialStatements(setup),
      'Run as a superuser (or a user with CREATEDB and CREATEUSER).',
    ),
  ]);
}

/** Step 2 (`create`): run in the new managed database. */
export function createStepScript(setup: ClusterWarehouseSetup): Script {
  return script('ClusterWarehouse setup: schemas and grants in the managed database', [
    managedSection(
      setup,
      managedStatements(setup),
      'Run as the same privileged user, connected to the managed database.',
    ),
  ]);
}

/** Everything create makes (automatic bootstrap runs this). */
export function fullCreateScript(setup: ClusterWarehouseSetup): Script {
  return script('ClusterWarehouse setup', [
    initialSection(setup, initialStatements(setup), 'System user, groups and the managed database.'),
    managedSection(setup, managedStatements(setup), 'Schemas and grants in the managed database.'),
  ]);
}

/** Removes exactly what create made, in reverse dependency order (the database takes its schemas). */
export function deleteScript(setup: ClusterWarehouseSetup): Script {
  const { autoBootstrap, config } = setup;
  const user = id(clusterSystemUser(config), 'username');
  const group = id(CLUSTER_SYSTEM_GROUP, 'group');
  const out = [`DROP DATABASE ${id(config.database, 'database')}`];
  if (config.impersonation.enabled)
    out.push(`DROP GROUP ${id(config.impersonation.role, 'impersonation role')}`);
  out.push(`ALTER GROUP ${group} DROP USER ${user}`, `DROP GROUP ${group}`);
  if (!autoBootstrap) out.push(`DROP USER ${user}`);
  return script('ClusterWarehouse removal', [
    {
      database: config.initialDatabase,
      note: 'Run as a superuser, connected to a database other than the managed one.',
      statements: out,
    },
  ]);
}

/**
 * Only what the change requires. `host` and `database` cannot change (non-editable), so the
 * edit touches the system user's credentials and membership and the impersonation group.
 */
export function editScript(previous: ClusterWarehouseSetup, next: ClusterWarehouseSetup): Script {
  const prev = previous.config;
  const cfg = next.config;
  const group = id(CLUSTER_SYSTEM_GROUP, 'group');
  const before: string[] = [];
  const grants: string[] = [];
  const after: string[] = [];
  const oldUser = clusterSystemUser(prev);
  const newUser = clusterSystemUser(cfg);
  const renamed = !sameIdentifier('cluster', oldUser, newUser);
  if (!next.autoBootstrap) {
    if (renamed) before.push(`ALTER USER ${id(oldUser, 'username')} RENAME TO ${id(newUser, 'username')}`);
    const passwordChanged =
      cfg.authenticationType === 'userPassword' &&
      (renamed || prev.authenticationType !== 'userPassword' || prev.password !== cfg.password);
    // Renaming clears an MD5 password, so a renamed password user always gets it set again.
    if (passwordChanged) before.push(`ALTER USER ${id(newUser, 'username')} ${passwordClause(cfg)}`);
    if (cfg.authenticationType !== 'userPassword' && prev.authenticationType === 'userPassword')
      before.push(`ALTER USER ${id(newUser, 'username')} PASSWORD DISABLED`);
  } else if (renamed) {
    before.push(`ALTER GROUP ${group} DROP USER ${id(oldUser, 'username')}`);
    before.push(`ALTER GROUP ${group} ADD USER ${id(newUser, 'username')}`);
  }
  const wasOn = prev.impersonation.enabled;
  const isOn = cfg.impersonation.enabled;
  const oldRole = id(prev.impersonation.role, 'impersonation role');
  const newRole = id(cfg.impersonation.role, 'impersonation role');
  const policySchema = id(POLICY_SCHEMA, 'schema');
  if (!wasOn && isOn) {
    before.push(`CREATE GROUP ${newRole}`);
    grants.push(`GRANT USAGE ON SCHEMA ${policySchema} TO GROUP ${newRole}`);
  } else if (wasOn && !isOn) {
    grants.push(`REVOKE USAGE ON SCHEMA ${policySchema} FROM GROUP ${oldRole}`);
    after.push(`DROP GROUP ${oldRole}`);
  } else if (wasOn && isOn && !sameIdentifier('cluster', prev.impersonation.role, cfg.impersonation.role)) {
    before.push(`ALTER GROUP ${oldRole} RENAME TO ${newRole}`);
  }
  return script('ClusterWarehouse edit', [
    initialSection(next, before, 'Users and groups (any database).'),
    managedSection(next, grants, 'Schema grants, connected to the managed database.'),
    initialSection(next, after, 'Groups no longer used (any database).'),
  ]);
}
