/**
 * AnalyticsWarehouse (T-SQL): what the service creates, as a setup plan, in the platform's two
 * phases: logins live in `master`, users and schemas in the existing database, and a session
 * cannot switch between them.
 *
 * Objects the service creates:
 * - in master (manual setup only): the login `config.username` with its password;
 * - in `config.database`: the database user for that login (manual only); the schema
 *   `config.schema` for secure views, owned by the system user; grants CREATE VIEW, CREATE
 *   FUNCTION, SELECT (with grant option, so views can be shared), ALTER ANY SECURITY POLICY and
 *   ALTER ANY MASK to the system user (manual only: with automatic setup the config's user is
 *   already privileged, and the platform refuses grants to oneself); the impersonation role
 *   (enabled), owned by the system user, with SELECT on the schema.
 *
 * Removal is two steps too: `cleanup` (in the database: the views in the schema first, then the
 * schema, role and user) and `post-cleanup` (in master: the login).
 */

import {
  adding,
  type ChangeSet,
  type ChangeStep,
  change,
  droppingWith,
  editSetting,
  type PlanStep,
  type ScriptLayouts,
  type SetupPlan,
} from '../sql/plan';
import { quoteIdent, quoteLiteral, sameIdentifier } from '../sql/quote';
import { TEST } from '../validation-tests';
import type { AnalyticsWarehouseConfig } from './schema';
export interface AnalyticsWarehouseSetup {
  autoBootstrap: boolean;
  config: AnalyticsWarehouseConfig;
}

const MASTER_DATABASE = 'master';
const USER_GRANTS = [
  'CREATE VIEW',
  'CREATE FUNCTION',
  'SELECT',
  'ALTER ANY SECURITY POLICY',
  'ALTER ANY MASK',
];

const id = (value: string, what: string) => quoteIdent('tsql', value, what);
const lit = (value: string, what: string) => quoteLiteral('tsql', value, what);

/** Drops every view in the schema (T-SQL has no DROP SCHEMA … CASCADE); names come from the catalog, quoted by QUOTENAME. */
function dropViewsStatement(schemaName: string): string {
  return (
    `DECLARE @drop NVARCHAR(MAX) = N''; ` +
    `SELECT @drop = @drop + N'DROP VIEW ' + QUOTENAME(s.name) + N'.' + QUOTENAME(v.name) + N'; ' ` +
    `FROM sys.views AS v JOIN sys.schemas AS s ON s.schema_id = v.schema_id WHERE s.name = ${lit(schemaName, 'schema')}; ` +
    'EXEC sp_executesql @drop'
  );
}

export function analyticsPlan({ autoBootstrap, config }: AnalyticsWarehouseSetup): SetupPlan {
  const steps: PlanStep[] = [];
  const master = (step: Omit<PlanStep, 'phase'>) => steps.push({ ...step, phase: 'master' });
  const database = (step: Omit<PlanStep, 'phase'>) => steps.push({ ...step, phase: 'database' });
  const user = id(config.username, 'username');
  const schema = id(config.schema, 'schema');
  const systemUser = { kind: 'user', name: config.username } as const;
  if (!autoBootstrap) {
    master({
      key: 'login',
      object: { kind: 'login', name: config.username },
      create: [`CREATE LOGIN ${user} WITH PASSWORD = ${lit(config.password, 'password')}`],
      undo: [`DROP LOGIN ${user}`],
    });
    database({
      key: 'database-user',
      object: { ...systemUser, parent: config.database },
      create: [`CREATE USER ${user} FOR LOGIN ${user}`],
      undo: [`DROP USER ${user}`],
    });
  }
  database({
    key: 'schema',
    object: { kind: 'schema', name: config.schema, parent: config.database },
    create: [`CREATE SCHEMA ${schema} AUTHORIZATION ${user}`],
    undo: [dropViewsStatement(config.schema), `DROP SCHEMA ${schema}`],
    mustNotExist: TEST.schemaDoesNotExist,
  });
  if (!autoBootstrap)
    for (const privilege of USER_GRANTS) {
      const option = privilege === 'SELECT';
      database({
        key: `user-grant:${privilege}`,
        object: {
          kind: 'grant',
          privilege,
          on: { kind: 'database', name: config.database },
          to: systemUser,
          ...(option ? { grantOption: true } : {}),
        },
        create: [`GRANT ${privilege} TO ${user}${option ? ' WITH GRANT OPTION' : ''}`],
        undo: [`REVOKE ${privilege} FROM ${user}${option ? ' CASCADE' : ''}`],
        removedWith: 'database-user',
      });
    }
  if (config.impersonation.enabled) {
    const name = config.impersonation.role;
    const role = id(name, 'impersonation role');
    database({
      key: 'impersonation-role',
      object: { kind: 'role', name, parent: config.database },
      create: [`CREATE ROLE ${role} AUTHORIZATION ${user}`],
      undo: [`DROP ROLE ${role}`],
      mustNotExist: TEST.impersonationRoleDoesNotExist,
    });
    database({
      key: 'impersonation-grant',
      object: {
        kind: 'grant',
        privilege: 'SELECT',
        on: { kind: 'schema', name: config.schema, parent: config.database },
        to: { kind: 'role', name },
      },
      create: [`GRANT SELECT ON SCHEMA::${schema} TO ${role}`],
      undo: [`REVOKE SELECT ON SCHEMA::${schema} FROM ${role}`],
      removedWith: 'impersonation-role',
    });
  }
  return {
    phases: { master: { database: MASTER_DATABASE }, database: { database: config.database } },
    steps,
  };
}

const IN_MASTER = 'Run as a server administrator, connected to master.';
const IN_DATABASE = 'Run as the database owner, connected to the database.';

export const analyticsLayouts: ScriptLayouts = {
  setup: {
    title: 'AnalyticsWarehouse setup',
    sections: [
      { phase: 'master', note: 'The login, in master.' },
      { phase: 'database', note: 'User, schema and grants, in the database.' },
    ],
  },
  'initial-create': {
    title: 'AnalyticsWarehouse initial setup (step 1 of 2): the login',
    sections: [{ phase: 'master', note: IN_MASTER }],
  },
  create: {
    title: 'AnalyticsWarehouse setup (step 2 of 2): user, schema and grants',
    sections: [{ phase: 'database', note: IN_DATABASE }],
  },
  cleanup: {
    title: 'AnalyticsWarehouse removal (step 1 of 2): schema, role and user',
    sections: [{ phase: 'database', note: IN_DATABASE }],
  },
  'post-cleanup': {
    title: 'AnalyticsWarehouse removal (step 2 of 2): the login',
    sections: [{ phase: 'master', note: IN_MASTER }],
  },
  delete: {
    title: 'AnalyticsWarehouse removal',
    sections: [
      { phase: 'database', note: 'Schema, role and user, in the database.' },
      { phase: 'master', note: 'The login, in master.' },
    ],
  },
};

/**
 * Only what the change requires (`host`, `database` and `schema` are non-editable), each change
 * with its undo.
 */
export function analyticsEdit(previous: AnalyticsWarehouseSetup, next: AnalyticsWarehouseSetup): ChangeSet {
  const prev = previous.config;
  const cfg = next.config;
  const oldPlan = analyticsPlan(previous);
  const newPlan = analyticsPlan(next);
  const master: ChangeStep[] = [];
  const database: ChangeStep[] = [];
  const renamed = !sameIdentifier('tsql', prev.username, cfg.username);
  const [oldUser, user] = [id(prev.username, 'username'), id(cfg.username, 'username')];
  if (!next.autoBootstrap) {
    if (renamed) {
      master.push(
        ...change(
          'rename-login',
          [`ALTER LOGIN ${oldUser} WITH NAME = ${user}`],
          [`ALTER LOGIN ${user} WITH NAME = ${oldUser}`],
        ),
      );
      database.push(
        ...change(
          'rename-user',
          [`ALTER USER ${oldUser} WITH NAME = ${user}`],
          [`ALTER USER ${user} WITH NAME = ${oldUser}`],
        ),
      );
    }
    if (prev.password !== cfg.password)
      master.push(
        ...change(
          'login-password',
          [`ALTER LOGIN ${user} WITH PASSWORD = ${lit(cfg.password, 'password')}`],
          [`ALTER LOGIN ${user} WITH PASSWORD = ${lit(prev.password, 'password')}`],
        ),
      );
  }
  editSetting('tsql', prev.impersonation, cfg.impersonation, {
    on: () => database.push(...adding(newPlan, 'impersonation-role', 'impersonation-grant')),
    // Dropping the role takes its grant; taking the drop back restores both.
    off: () => database.push(...droppingWith(oldPlan, 'impersonation-role', 'impersonation-grant')),
    renamed(from, to) {
      const [o, n] = [id(from, 'impersonation role'), id(to, 'impersonation role')];
      database.push(
        ...change(
          'rename-impersonation-role',
          [`ALTER ROLE ${o} WITH NAME = ${n}`],
          [`ALTER ROLE ${n} WITH NAME = ${o}`],
        ),
      );
    },
  });
  return {
    title: 'AnalyticsWarehouse edit',
    sections: [
      { database: MASTER_DATABASE, note: 'Logins, in master.', steps: master },
      { database: cfg.database, note: 'Users and roles, in the database.', steps: database },
    ],
  };
}
