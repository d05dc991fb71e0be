/**
 * CloudWarehouse (Snowflake-like): what the service creates, as a setup plan.
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
import { type PlanStep, type ScriptLayouts, type SetupPlan, stepOf } from '../sql/plan';
import { quoteIdent, quoteLiteral, quoteQualified, sameIdentifier } from '../sql/quote';
import { type Script, ScriptInputError, script } from '../sql/script';
import { TEST } from '../validation-tests';
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

const statementsOf = (plan: SetupPlan, key: string, which: 'create' | 'undo') => [
  ...(stepOf(plan, key)?.[which] ?? []),
];

/** The user statements of a plan: the user (or its defaults) and its role grant. */
const userStatements = (plan: SetupPlan) => [
  ...statementsOf(plan, 'system-user', 'create'),
  ...statementsOf(plan, 'system-user-defaults', 'create'),
  ...statementsOf(plan, 'system-role-grant', 'create'),
];

/** Removing the user: a user the service created is dropped; the operator's loses the role. */
const userRemoval = (plan: SetupPlan) => {
  const dropped = statementsOf(plan, 'system-user', 'undo');
  return dropped.length > 0 ? dropped : statementsOf(plan, 'system-role-grant', 'undo');
};

function credentialEdit(previous: CloudWarehouseSetup, next: CloudWarehouseSetup): string[] {
  const prev = previous.config;
  const cfg = next.config;
  const oldName = cloudSystemUser(prev);
  const newName = cloudSystemUser(cfg);
  if (oldName === undefined && newName === undefined) return [];
  if (oldName === undefined) return userStatements(cloudPlan(next));
  if (newName === undefined) return userRemoval(cloudPlan(previous));
  const renamed = !sameIdentifier('cloud', oldName, newName);
  if (next.autoBootstrap) {
    // The user is the operator's; only the role grant and defaults follow it.
    if (!renamed) return [];
    return [
      ...statementsOf(cloudPlan(previous), 'system-role-grant', 'undo'),
      ...userStatements(cloudPlan(next)),
    ];
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
      out.push(`ALTER USER ${user} SET RSA_PUBLIC_KEY = ${lit(publicKey(cfg.privateKey), 'public key')}`);
    if (prev.authenticationType === 'userPassword') out.push(`ALTER USER ${user} UNSET PASSWORD`);
  }
  return out;
}

/** Only what the change requires (`host` and `database` are non-editable). */
export function cloudEdit(previous: CloudWarehouseSetup, next: CloudWarehouseSetup): Script {
  const prev = previous.config;
  const cfg = next.config;
  const oldPlan = cloudPlan(previous);
  const newPlan = cloudPlan(next);
  const out: string[] = [];
  if (!sameIdentifier('cloud', prev.warehouse, cfg.warehouse)) {
    out.push(...statementsOf(newPlan, 'warehouse-usage', 'create'));
    const stillWorkspace = workspaceWarehouses(cfg).some((w) => sameIdentifier('cloud', w, prev.warehouse));
    if (!stillWorkspace) out.push(...statementsOf(oldPlan, 'warehouse-usage', 'undo'));
  }
  const oldSchemas = cloudSchemas(prev);
  const newSchemas = cloudSchemas(cfg);
  for (const s of newSchemas)
    if (!oldSchemas.includes(s))
      out.push(
        ...statementsOf(newPlan, `schema:${s}`, 'create'),
        ...statementsOf(newPlan, `schema-owner:${s}`, 'create'),
      );
  for (const s of oldSchemas)
    if (!newSchemas.includes(s)) out.push(...statementsOf(oldPlan, `schema:${s}`, 'undo'));
  // Account-level grants come and go with their feature.
  for (const key of ['account-usage', 'apply-tag', 'create-database']) {
    const had = stepOf(oldPlan, key);
    const has = stepOf(newPlan, key);
    if (!had && has) out.push(...has.create);
    if (had && !has) out.push(...had.undo);
  }
  const oldWs = workspaceWarehouses(prev);
  const newWs = workspaceWarehouses(cfg);
  for (const w of newWs)
    if (!oldWs.some((o) => sameIdentifier('cloud', o, w)))
      out.push(...statementsOf(newPlan, `workspace-warehouse:${w}`, 'create'));
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
    out.push(
      ...statementsOf(newPlan, 'impersonation-role', 'create'),
      ...statementsOf(newPlan, 'impersonation-owner', 'create'),
    );
  } else if (wasOn && !isOn) {
    out.push(...statementsOf(oldPlan, 'impersonation-role', 'undo'));
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
