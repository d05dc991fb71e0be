/**
 * ClusterWarehouse (PostgreSQL/Redshift family): what the service creates, as a setup plan.
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
 *
 * Two phases, because a PostgreSQL session cannot switch databases: `initial` runs in the
 * initial (any existing) database, `managed` in the new managed database.
 */

import {
  adding,
  type ChangeSet,
  type ChangeStep,
  change,
  editSetting,
  type PlanStep,
  removing,
  type ScriptLayouts,
  type SetupPlan,
} from '../sql/plan';
import { quoteIdent, quoteLiteral, sameIdentifier } from '../sql/quote';
import { TEST } from '../validation-tests';
import type { ClusterWarehouseConfig } from './schema';
export interface ClusterWarehouseSetup {
  autoBootstrap: boolean;
  config: ClusterWarehouseConfig;
}

const CLUSTER_SYSTEM_GROUP = 'service_system';
const CLUSTER_SCHEMAS = ['service_metadata', 'service_policies'] as const;
const POLICY_SCHEMA = 'service_policies';

const id = (value: string, what: string) => quoteIdent('cluster', value, what);
const PUBLIC = { kind: 'public', name: 'PUBLIC' } as const;

function clusterSystemUser(config: ClusterWarehouseConfig): string {
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

export function clusterPlan({ autoBootstrap, config }: ClusterWarehouseSetup): SetupPlan {
  const userName = clusterSystemUser(config);
  const user = id(userName, 'username');
  const group = id(CLUSTER_SYSTEM_GROUP, 'group');
  const db = id(config.database, 'database');
  const systemGroup = { kind: 'group', name: CLUSTER_SYSTEM_GROUP } as const;
  const steps: PlanStep[] = [];
  const initial = (step: Omit<PlanStep, 'phase'>) => steps.push({ ...step, phase: 'initial' });
  const managed = (step: Omit<PlanStep, 'phase'>) => steps.push({ ...step, phase: 'managed' });

  if (!autoBootstrap)
    initial({
      key: 'system-user',
      object: { kind: 'user', name: userName },
      create: [`CREATE USER ${user} ${passwordClause(config)}`],
      undo: [`DROP USER ${user}`],
    });
  initial({
    key: 'system-group',
    object: systemGroup,
    create: [`CREATE GROUP ${group}`],
    undo: [`DROP GROUP ${group}`],
  });
  initial({
    key: 'system-group-member',
    object: { kind: 'membership', role: systemGroup, member: { kind: 'user', name: userName } },
    create: [`ALTER GROUP ${group} ADD USER ${user}`],
    undo: [`ALTER GROUP ${group} DROP USER ${user}`],
  });
  // Dropping the database first also drops every schema and privilege inside it.
  initial({
    key: 'database',
    object: { kind: 'database', name: config.database },
    create: [`CREATE DATABASE ${db} OWNER ${user}`],
    undo: [`DROP DATABASE ${db}`],
    undoFirst: true,
    mustNotExist: TEST.databaseDoesNotExist,
  });
  initial({
    key: 'database-closed',
    object: {
      kind: 'grant',
      privilege: 'ALL',
      on: { kind: 'database', name: config.database },
      to: PUBLIC,
      revoked: true,
    },
    create: [`REVOKE ALL ON DATABASE ${db} FROM PUBLIC`],
    undo: [`GRANT ALL ON DATABASE ${db} TO PUBLIC`],
    removedWith: 'database',
  });
  initial({
    key: 'database-grant',
    object: {
      kind: 'grant',
      privilege: 'ALL',
      on: { kind: 'database', name: config.database },
      to: systemGroup,
    },
    create: [`GRANT ALL ON DATABASE ${db} TO GROUP ${group}`],
    undo: [`REVOKE ALL ON DATABASE ${db} FROM GROUP ${group}`],
    removedWith: 'database',
  });
  const imp = config.impersonation.enabled ? config.impersonation.role : undefined;
  const impGroup = imp === undefined ? undefined : ({ kind: 'group', name: imp } as const);
  if (impGroup)
    initial({
      key: 'impersonation-group',
      object: impGroup,
      create: [`CREATE GROUP ${id(impGroup.name, 'impersonation role')}`],
      undo: [`DROP GROUP ${id(impGroup.name, 'impersonation role')}`],
      mustNotExist: TEST.impersonationRoleDoesNotExist,
    });
  for (const schema of CLUSTER_SCHEMAS)
    managed({
      key: `schema:${schema}`,
      object: { kind: 'schema', name: schema, parent: config.database },
      create: [`CREATE SCHEMA ${id(schema, 'schema')} AUTHORIZATION ${user}`],
      undo: [`DROP SCHEMA ${id(schema, 'schema')}`],
      removedWith: 'database',
    });
  for (const schema of CLUSTER_SCHEMAS)
    managed({
      key: `schema-grant:${schema}`,
      object: {
        kind: 'grant',
        privilege: 'ALL',
        on: { kind: 'schema', name: schema, parent: config.database },
        to: systemGroup,
      },
      create: [`GRANT ALL ON SCHEMA ${id(schema, 'schema')} TO GROUP ${group}`],
      undo: [`REVOKE ALL ON SCHEMA ${id(schema, 'schema')} FROM GROUP ${group}`],
      removedWith: 'database',
    });
  if (impGroup) {
    const policies = id(POLICY_SCHEMA, 'schema');
    const role = id(impGroup.name, 'impersonation role');
    managed({
      key: 'impersonation-grant',
      object: {
        kind: 'grant',
        privilege: 'USAGE',
        on: { kind: 'schema', name: POLICY_SCHEMA, parent: config.database },
        to: impGroup,
      },
      create: [`GRANT USAGE ON SCHEMA ${policies} TO GROUP ${role}`],
      undo: [`REVOKE USAGE ON SCHEMA ${policies} FROM GROUP ${role}`],
      removedWith: 'database',
    });
  }
  return {
    phases: { initial: { database: config.initialDatabase }, managed: { database: config.database } },
    steps,
  };
}

export const clusterLayouts: ScriptLayouts = {
  setup: {
    title: 'ClusterWarehouse setup',
    sections: [
      { phase: 'initial', note: 'System user, groups and the managed database.' },
      { phase: 'managed', note: 'Schemas and grants in the managed database.' },
    ],
  },
  'initial-create': {
    title: 'ClusterWarehouse initial setup: system user, groups and the managed database',
    sections: [{ phase: 'initial', note: 'Run as a superuser (or a user with CREATEDB and CREATEUSER).' }],
  },
  create: {
    title: 'ClusterWarehouse setup: schemas and grants in the managed database',
    sections: [
      { phase: 'managed', note: 'Run as the same privileged user, connected to the managed database.' },
    ],
  },
  delete: {
    title: 'ClusterWarehouse removal',
    sections: [
      { phase: 'initial', note: 'Run as a superuser, connected to a database other than the managed one.' },
    ],
  },
};

/**
 * Only what the change requires. `host` and `database` cannot change (non-editable), so the
 * edit touches the system user's credentials and membership and the impersonation group. Each
 * change carries its undo, so a failed edit can be rolled back.
 */
export function clusterEdit(previous: ClusterWarehouseSetup, next: ClusterWarehouseSetup): ChangeSet {
  const prev = previous.config;
  const cfg = next.config;
  const before: ChangeStep[] = [];
  const grants: ChangeStep[] = [];
  const after: ChangeStep[] = [];
  const oldPlan = clusterPlan(previous);
  const newPlan = clusterPlan(next);
  const oldUser = clusterSystemUser(prev);
  const newUser = clusterSystemUser(cfg);
  const renamed = !sameIdentifier('cluster', oldUser, newUser);
  if (!next.autoBootstrap) {
    const [o, n] = [id(oldUser, 'username'), id(newUser, 'username')];
    if (renamed)
      before.push(
        ...change('rename-user', [`ALTER USER ${o} RENAME TO ${n}`], [`ALTER USER ${n} RENAME TO ${o}`]),
      );
    const passwordChanged =
      cfg.authenticationType === 'userPassword' &&
      (renamed || prev.authenticationType !== 'userPassword' || prev.password !== cfg.password);
    // Renaming clears an MD5 password, so a renamed password user always gets it set again.
    if (passwordChanged)
      before.push(
        ...change(
          'user-password',
          [`ALTER USER ${n} ${passwordClause(cfg)}`],
          [`ALTER USER ${n} ${passwordClause(prev)}`],
        ),
      );
    if (cfg.authenticationType !== 'userPassword' && prev.authenticationType === 'userPassword')
      before.push(
        ...change(
          'user-password',
          [`ALTER USER ${n} PASSWORD DISABLED`],
          [`ALTER USER ${n} ${passwordClause(prev)}`],
        ),
      );
  } else if (renamed) {
    // The user is the operator's: only its membership of the system group follows it.
    before.push(...removing(oldPlan, 'system-group-member'), ...adding(newPlan, 'system-group-member'));
  }
  editSetting('cluster', prev.impersonation, cfg.impersonation, {
    on() {
      before.push(...adding(newPlan, 'impersonation-group'));
      grants.push(...adding(newPlan, 'impersonation-grant'));
    },
    off() {
      grants.push(...removing(oldPlan, 'impersonation-grant'));
      after.push(...removing(oldPlan, 'impersonation-group'));
    },
    renamed(from, to) {
      const [o, n] = [id(from, 'impersonation role'), id(to, 'impersonation role')];
      before.push(
        ...change(
          'rename-impersonation-group',
          [`ALTER GROUP ${o} RENAME TO ${n}`],
          [`ALTER GROUP ${n} RENAME TO ${o}`],
        ),
      );
    },
  });
  const { initial, managed } = newPlan.phases;
  return {
    title: 'ClusterWarehouse edit',
    sections: [
      { database: initial?.database, note: 'Users and groups (any database).', steps: before },
      {
        database: managed?.database,
        note: 'Schema grants, connected to the managed database.',
        steps: grants,
      },
      { database: initial?.database, note: 'Groups no longer used (any database).', steps: after },
    ],
  };
}
