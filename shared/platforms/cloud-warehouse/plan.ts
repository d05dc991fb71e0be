/**
 * CloudWarehouse (Snowflake-like): what the service creates, as a setup plan.
 *
 * Over 400 lines: one plan, read top to bottom as the platform applies it; splitting its steps
 * over files would hide their order, which is the point of a plan.
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
 * service runs these statements as that user under that role, minus the user creation (it only
 * sets the user's default role and warehouse, which removal leaves as they are).
 */
import { publicKeyOf, UnreadablePrivateKeyError } from '../../crypto/public-key';
import {
  adding,
  type ChangeSet,
  type ChangeStep,
  change,
  droppingWith,
  editSetting,
  type PlanStep,
  removing,
  type ScriptLayouts,
  type SetupPlan,
  stepOf,
} from '../sql/plan';
import { quoteIdent, quoteLiteral, quoteQualified, sameIdentifier } from '../sql/quote';
import { ScriptInputError } from '../sql/script';
import { TEST } from '../validation-tests';
import type { CloudWarehouseConfig } from './schema';
export interface CloudWarehouseSetup {
  autoBootstrap: boolean;
  config: CloudWarehouseConfig;
}

const CLOUD_SYSTEM_ROLE = 'SERVICE_SYSTEM_ROLE';
const CLOUD_BASE_SCHEMAS = ['METADATA', 'POLICIES'] as const;
const CLOUD_AUDIT_SCHEMA = 'AUDIT';
const CLOUD_LINEAGE_SCHEMA = 'LINEAGE';
/** The platform's shared database holding account usage views (access history). */
const CLOUD_ACCOUNT_USAGE_DATABASE = 'SNOWFLAKE';

const id = (value: string, what: string) => quoteIdent('cloud', value, what);
const lit = (value: string, what: string) => quoteLiteral('cloud', value, what);
const ROLE = id(CLOUD_SYSTEM_ROLE, 'role');
const SYSTEM_ROLE = { kind: 'role', name: CLOUD_SYSTEM_ROLE } as const;

/** The RSA_PUBLIC_KEY of the config's private key; a key that cannot be read is a 400. */
function publicKey(privateKey: string): string {
  try {
    return publicKeyOf(privateKey);
  } catch (error) {
    if (error instanceof UnreadablePrivateKeyError)
      throw new ScriptInputError('config.privateKey is not a readable PEM private key');
    throw error;
  }
}

function cloudSystemUser(config: CloudWarehouseConfig): string | undefined {
  return config.authenticationType === 'oAuth' ? undefined : config.username;
}

function cloudSchemas(config: CloudWarehouseConfig): string[] {
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
    return `RSA_PUBLIC_KEY = ${lit(publicKey(config.privateKey), 'public key')}`;
  return '';
}

/** A grant of an account-level or warehouse privilege to the system role (gone with the role). */
function roleGrant(
  key: string,
  privilege: string,
  on: { kind: string; name: string },
  onSql: string,
  option = false,
): Omit<PlanStep, 'phase'> {
  return {
    key,
    object: { kind: 'grant', privilege, on, to: SYSTEM_ROLE, ...(option ? { grantOption: true } : {}) },
    create: [`GRANT ${privilege} ON ${onSql} TO ROLE ${ROLE}${option ? ' WITH GRANT OPTION' : ''}`],
    undo: [`REVOKE ${privilege} ON ${onSql} FROM ROLE ${ROLE}`],
    removedWith: 'system-role',
  };
}

export function cloudPlan({ autoBootstrap, config }: CloudWarehouseSetup): SetupPlan {
  const steps: PlanStep[] = [];
  const add = (step: Omit<PlanStep, 'phase'>) => steps.push({ ...step, phase: 'main' });
  const db = id(config.database, 'database');
  add({
    key: 'system-role',
    object: SYSTEM_ROLE,
    create: [`CREATE ROLE ${ROLE}`],
    undo: [`DROP ROLE ${ROLE}`],
  });
  add({
    key: 'database',
    object: { kind: 'database', name: config.database },
    create: [`CREATE DATABASE ${db}`],
    undo: [`DROP DATABASE ${db}`],
    mustNotExist: TEST.databaseDoesNotExist,
  });
  add({
    key: 'database-owner',
    object: {
      kind: 'grant',
      privilege: 'OWNERSHIP',
      on: { kind: 'database', name: config.database },
      to: SYSTEM_ROLE,
    },
    create: [`GRANT OWNERSHIP ON DATABASE ${db} TO ROLE ${ROLE}`],
    undo: [],
    removedWith: 'database',
  });
  for (const schema of cloudSchemas(config)) {
    const name = quoteQualified('cloud', [config.database, schema], 'schema');
    add({
      key: `schema:${schema}`,
      object: { kind: 'schema', name: schema, parent: config.database },
      create: [`CREATE SCHEMA ${name}`],
      undo: [`DROP SCHEMA ${name}`],
      removedWith: 'database',
    });
    add({
      key: `schema-owner:${schema}`,
      object: {
        kind: 'grant',
        privilege: 'OWNERSHIP',
        on: { kind: 'schema', name: schema, parent: config.database },
        to: SYSTEM_ROLE,
      },
      create: [`GRANT OWNERSHIP ON SCHEMA ${name} TO ROLE ${ROLE}`],
      undo: [],
      removedWith: `schema:${schema}`,
    });
  }
  const warehouse = (name: string) => ({ kind: 'warehouse', name });
  add(
    roleGrant(
      'warehouse-usage',
      'USAGE',
      warehouse(config.warehouse),
      `WAREHOUSE ${id(config.warehouse, 'warehouse')}`,
    ),
  );
  const account = { kind: 'account', name: 'ACCOUNT' };
  add(roleGrant('apply-masking-policy', 'APPLY MASKING POLICY', account, 'ACCOUNT'));
  add(roleGrant('apply-row-access-policy', 'APPLY ROW ACCESS POLICY', account, 'ACCOUNT'));
  if (needsAccountUsage(config))
    add(
      roleGrant(
        'account-usage',
        'IMPORTED PRIVILEGES',
        { kind: 'database', name: CLOUD_ACCOUNT_USAGE_DATABASE },
        `DATABASE ${id(CLOUD_ACCOUNT_USAGE_DATABASE, 'database')}`,
      ),
    );
  if (config.lineage.enabled) add(roleGrant('apply-tag', 'APPLY TAG', account, 'ACCOUNT'));
  if (config.workspaces.enabled) {
    add(roleGrant('create-database', 'CREATE DATABASE', account, 'ACCOUNT'));
    for (const wh of config.workspaces.warehouses)
      add(
        roleGrant(
          `workspace-warehouse:${wh}`,
          'USAGE',
          warehouse(wh),
          `WAREHOUSE ${id(wh, 'warehouse')}`,
          true,
        ),
      );
  }
  if (config.impersonation.enabled) {
    const role = config.impersonation.role;
    const imp = id(role, 'impersonation role');
    add({
      key: 'impersonation-role',
      object: { kind: 'role', name: role },
      create: [`CREATE ROLE ${imp}`],
      undo: [`DROP ROLE ${imp}`],
      // The removal script has always dropped it first; nothing else depends on that order.
      undoFirst: true,
      mustNotExist: TEST.impersonationRoleDoesNotExist,
    });
    add({
      key: 'impersonation-owner',
      object: { kind: 'grant', privilege: 'OWNERSHIP', on: { kind: 'role', name: role }, to: SYSTEM_ROLE },
      create: [`GRANT OWNERSHIP ON ROLE ${imp} TO ROLE ${ROLE}`],
      undo: [],
      removedWith: 'impersonation-role',
    });
  }
  const userName = cloudSystemUser(config);
  if (userName !== undefined) {
    const user = id(userName, 'username');
    const defaults = `DEFAULT_ROLE = ${ROLE} DEFAULT_WAREHOUSE = ${id(config.warehouse, 'warehouse')}`;
    if (autoBootstrap)
      add({
        key: 'system-user-defaults',
        object: {
          kind: 'setting',
          of: { kind: 'user', name: userName },
          name: 'DEFAULT_ROLE, DEFAULT_WAREHOUSE',
        },
        create: [`ALTER USER ${user} SET ${defaults}`],
        undo: [],
      });
    else
      add({
        key: 'system-user',
        object: { kind: 'user', name: userName },
        create: [`CREATE USER ${user} ${credentialClause(config)} ${defaults}`],
        undo: [`DROP USER ${user}`],
      });
    add({
      key: 'system-role-grant',
      object: { kind: 'membership', role: SYSTEM_ROLE, member: { kind: 'user', name: userName } },
      create: [`GRANT ROLE ${ROLE} TO USER ${user}`],
      undo: [`REVOKE ROLE ${ROLE} FROM USER ${user}`],
      // Dropping a user the service created takes the grant with it; the operator's user keeps its account.
      ...(autoBootstrap ? {} : { removedWith: 'system-user' }),
    });
  }
  return { phases: { main: {} }, steps };
}

export const cloudLayouts: ScriptLayouts<CloudWarehouseSetup> = {
  setup: {
    title: 'CloudWarehouse setup',
    sections: [
      {
        phase: 'main',
        note: ({ autoBootstrap }) =>
          autoBootstrap
            ? 'Run under the privileged role.'
            : 'Run with a role that may create roles, users and databases and manage grants (e.g. ACCOUNTADMIN).',
      },
    ],
  },
  delete: {
    title: 'CloudWarehouse removal',
    sections: [
      {
        phase: 'main',
        note: 'Run with a role that owns the service objects or may drop them (e.g. ACCOUNTADMIN).',
      },
    ],
  },
};

/** The user's steps of a plan: the user (or its defaults) and its role grant. */
const USER_STEPS = ['system-user', 'system-user-defaults', 'system-role-grant'];

/**
 * Removing the user: a user the service created is dropped (its role grant goes with it); the
 * operator's user only loses the role.
 */
function userRemoval(plan: SetupPlan): ChangeStep[] {
  const user = stepOf(plan, 'system-user');
  if (!user) return removing(plan, 'system-role-grant');
  const restore = [...user.create, ...(stepOf(plan, 'system-role-grant')?.create ?? [])];
  return change('system-user:previous', user.undo, restore);
}

/** The steps that turn a manual user's credentials from `from` into `to`, each with its undo. */
function credentialSteps(user: string, from: CloudWarehouseConfig, to: CloudWarehouseConfig): ChangeStep[] {
  const setPassword = (c: CloudWarehouseConfig) =>
    c.authenticationType === 'userPassword'
      ? `ALTER USER ${user} SET PASSWORD = ${lit(c.password, 'password')}`
      : `ALTER USER ${user} UNSET PASSWORD`;
  const setKey = (c: CloudWarehouseConfig) =>
    c.authenticationType === 'keyPair'
      ? `ALTER USER ${user} SET RSA_PUBLIC_KEY = ${lit(publicKey(c.privateKey), 'public key')}`
      : `ALTER USER ${user} UNSET RSA_PUBLIC_KEY`;
  const steps: ChangeStep[] = [];
  if (to.authenticationType === 'userPassword') {
    if (from.authenticationType !== 'userPassword' || from.password !== to.password)
      steps.push(...change('user-password', [setPassword(to)], [setPassword(from)]));
    if (from.authenticationType === 'keyPair')
      steps.push(...change('user-key', [setKey(to)], [setKey(from)]));
  } else if (to.authenticationType === 'keyPair') {
    if (from.authenticationType !== 'keyPair' || from.privateKey !== to.privateKey)
      steps.push(...change('user-key', [setKey(to)], [setKey(from)]));
    if (from.authenticationType === 'userPassword')
      steps.push(...change('user-password', [setPassword(to)], [setPassword(from)]));
  }
  return steps;
}

function credentialEdit(previous: CloudWarehouseSetup, next: CloudWarehouseSetup): ChangeStep[] {
  const prev = previous.config;
  const cfg = next.config;
  const oldName = cloudSystemUser(prev);
  const newName = cloudSystemUser(cfg);
  if (oldName === undefined && newName === undefined) return [];
  const [oldPlan, newPlan] = [cloudPlan(previous), cloudPlan(next)];
  if (oldName === undefined) return adding(newPlan, ...USER_STEPS);
  if (newName === undefined) return userRemoval(oldPlan);
  const renamed = !sameIdentifier('cloud', oldName, newName);
  if (next.autoBootstrap) {
    // The user is the operator's; only the role grant and defaults follow it.
    if (!renamed) return [];
    return [...removing(oldPlan, 'system-role-grant'), ...adding(newPlan, ...USER_STEPS)];
  }
  const [oldUser, user] = [id(oldName, 'username'), id(newName, 'username')];
  return [
    ...(renamed
      ? change(
          'rename-user',
          [`ALTER USER ${oldUser} RENAME TO ${user}`],
          [`ALTER USER ${user} RENAME TO ${oldUser}`],
        )
      : []),
    ...credentialSteps(user, prev, cfg),
  ];
}

/** Only what the change requires (`host` and `database` are non-editable), each with its undo. */
export function cloudEdit(previous: CloudWarehouseSetup, next: CloudWarehouseSetup): ChangeSet {
  const prev = previous.config;
  const cfg = next.config;
  const oldPlan = cloudPlan(previous);
  const newPlan = cloudPlan(next);
  const steps: ChangeStep[] = [];
  if (!sameIdentifier('cloud', prev.warehouse, cfg.warehouse)) {
    steps.push(...adding(newPlan, 'warehouse-usage'));
    const stillWorkspace = workspaceWarehouses(cfg).some((w) => sameIdentifier('cloud', w, prev.warehouse));
    if (!stillWorkspace) steps.push(...removing(oldPlan, 'warehouse-usage'));
  }
  const oldSchemas = cloudSchemas(prev);
  const newSchemas = cloudSchemas(cfg);
  for (const s of newSchemas)
    if (!oldSchemas.includes(s)) steps.push(...adding(newPlan, `schema:${s}`, `schema-owner:${s}`));
  for (const s of oldSchemas) {
    if (newSchemas.includes(s)) continue;
    // Dropping the schema takes its ownership grant; taking the drop back restores both.
    const schema = stepOf(oldPlan, `schema:${s}`);
    const owner = stepOf(oldPlan, `schema-owner:${s}`);
    steps.push(
      ...change(`schema:${s}:previous`, schema?.undo ?? [], [
        ...(schema?.create ?? []),
        ...(owner?.create ?? []),
      ]),
    );
  }
  // Account-level grants come and go with their feature.
  for (const key of ['account-usage', 'apply-tag', 'create-database']) {
    const had = stepOf(oldPlan, key) !== undefined;
    const has = stepOf(newPlan, key) !== undefined;
    if (!had && has) steps.push(...adding(newPlan, key));
    if (had && !has) steps.push(...removing(oldPlan, key));
  }
  const oldWs = workspaceWarehouses(prev);
  const newWs = workspaceWarehouses(cfg);
  for (const w of newWs)
    if (!oldWs.some((o) => sameIdentifier('cloud', o, w)))
      steps.push(...adding(newPlan, `workspace-warehouse:${w}`));
  for (const w of oldWs)
    if (!newWs.some((n) => sameIdentifier('cloud', n, w))) {
      // Revoking the grant option only keeps plain usage on the (new) default warehouse.
      const isDefault = sameIdentifier('cloud', w, cfg.warehouse);
      const warehouse = id(w, 'warehouse');
      steps.push(
        ...change(
          `workspace-warehouse:${w}:previous`,
          [
            isDefault
              ? `REVOKE GRANT OPTION FOR USAGE ON WAREHOUSE ${warehouse} FROM ROLE ${ROLE}`
              : `REVOKE USAGE ON WAREHOUSE ${warehouse} FROM ROLE ${ROLE}`,
          ],
          stepOf(oldPlan, `workspace-warehouse:${w}`)?.create ?? [],
        ),
      );
    }
  editSetting('cloud', prev.impersonation, cfg.impersonation, {
    on: () => steps.push(...adding(newPlan, 'impersonation-role', 'impersonation-owner')),
    // Dropping the role takes its ownership grant; taking the drop back restores both.
    off: () => steps.push(...droppingWith(oldPlan, 'impersonation-role', 'impersonation-owner')),
    renamed(from, to) {
      const [o, n] = [id(from, 'impersonation role'), id(to, 'impersonation role')];
      steps.push(
        ...change(
          'rename-impersonation-role',
          [`ALTER ROLE ${o} RENAME TO ${n}`],
          [`ALTER ROLE ${n} RENAME TO ${o}`],
        ),
      );
    },
  });
  steps.push(...credentialEdit(previous, next));
  const user = cloudSystemUser(cfg);
  const oldUser = cloudSystemUser(prev);
  if (
    user !== undefined &&
    oldUser !== undefined &&
    sameIdentifier('cloud', user, oldUser) &&
    !sameIdentifier('cloud', prev.warehouse, cfg.warehouse)
  )
    steps.push(
      ...change(
        'default-warehouse',
        [`ALTER USER ${id(user, 'username')} SET DEFAULT_WAREHOUSE = ${id(cfg.warehouse, 'warehouse')}`],
        [`ALTER USER ${id(user, 'username')} SET DEFAULT_WAREHOUSE = ${id(prev.warehouse, 'warehouse')}`],
      ),
    );
  return { title: 'CloudWarehouse edit', sections: [{ note: 'Run with the role used for setup.', steps }] };
}
