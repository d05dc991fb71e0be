/**
 * Lakehouse (Databricks-SQL-like): what the service creates, as a setup plan.
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

import {
  adding,
  type ChangeSet,
  type ChangeStep,
  change,
  type PlanStep,
  removing,
  type ScriptLayouts,
  type SetupPlan,
  stepOf,
} from '../sql/plan';
import { quoteIdent, quoteLiteral, quoteQualified } from '../sql/quote';
import { TEST } from '../validation-tests';
import type { LakehouseConfig } from './schema';
export interface LakehouseSetup {
  autoBootstrap: boolean;
  config: LakehouseConfig;
}

const SCHEMAS = ['metadata'] as const;
const AUDIT_SCHEMA = 'audit';
const ALL_USERS = 'account users';

const id = (value: string, what: string) => quoteIdent('lakehouse', value, what);
const qualified = (parts: string[]) => quoteQualified('lakehouse', parts, 'schema');

function servicePrincipal(config: LakehouseConfig): string | undefined {
  return config.authenticationType === 'oAuthM2M' ? config.oAuthClientConfig.clientId : undefined;
}

export function lakehousePlan({ config }: LakehouseSetup): SetupPlan {
  const steps: PlanStep[] = [];
  const add = (step: Omit<PlanStep, 'phase'>) => steps.push({ ...step, phase: 'main' });
  const catalog = id(config.catalog, 'catalog');
  add({
    key: 'catalog',
    object: { kind: 'catalog', name: config.catalog },
    create: [
      `CREATE CATALOG ${catalog} COMMENT ${quoteLiteral('lakehouse', 'Internal data of the access-policy service', 'comment')}`,
    ],
    undo: [`DROP CATALOG ${catalog} CASCADE`],
    mustNotExist: TEST.catalogDoesNotExist,
  });
  const allUsers = id(ALL_USERS, 'group');
  add({
    key: 'catalog-closed',
    object: {
      kind: 'grant',
      privilege: 'ALL PRIVILEGES',
      on: { kind: 'catalog', name: config.catalog },
      to: { kind: 'group', name: ALL_USERS },
      revoked: true,
    },
    create: [`REVOKE ALL PRIVILEGES ON CATALOG ${catalog} FROM ${allUsers}`],
    undo: [`GRANT ALL PRIVILEGES ON CATALOG ${catalog} TO ${allUsers}`],
    removedWith: 'catalog',
  });
  const schemas = [...SCHEMAS, ...(config.audit.enabled ? [AUDIT_SCHEMA] : [])];
  for (const schema of schemas)
    add({
      key: `schema:${schema}`,
      object: { kind: 'schema', name: schema, parent: config.catalog },
      create: [`CREATE SCHEMA ${qualified([config.catalog, schema])}`],
      undo: [`DROP SCHEMA ${qualified([config.catalog, schema])} CASCADE`],
      removedWith: 'catalog',
    });
  const name = servicePrincipal(config);
  if (name === undefined) return { phases: { main: {} }, steps };
  const principal = { kind: 'principal', name } as const;
  const p = id(name, 'service principal');
  if (config.audit.enabled) {
    const system = id('system', 'catalog');
    const access = qualified(['system', 'access']);
    add({
      key: 'audit-catalog-grant',
      object: {
        kind: 'grant',
        privilege: 'USE CATALOG',
        on: { kind: 'catalog', name: 'system' },
        to: principal,
      },
      create: [`GRANT USE CATALOG ON CATALOG ${system} TO ${p}`],
      undo: [`REVOKE USE CATALOG ON CATALOG ${system} FROM ${p}`],
    });
    add({
      key: 'audit-schema-grant',
      object: {
        kind: 'grant',
        privilege: 'USE SCHEMA, SELECT',
        on: { kind: 'schema', name: 'access', parent: 'system' },
        to: principal,
      },
      create: [`GRANT USE SCHEMA, SELECT ON SCHEMA ${access} TO ${p}`],
      undo: [`REVOKE USE SCHEMA, SELECT ON SCHEMA ${access} FROM ${p}`],
    });
  }
  add({
    key: 'catalog-owner',
    object: {
      kind: 'grant',
      privilege: 'OWNERSHIP',
      on: { kind: 'catalog', name: config.catalog },
      to: principal,
    },
    create: [`ALTER CATALOG ${catalog} OWNER TO ${p}`],
    undo: [],
    removedWith: 'catalog',
  });
  return { phases: { main: {} }, steps };
}

export const lakehouseLayouts: ScriptLayouts<LakehouseSetup> = {
  setup: {
    title: 'Lakehouse setup',
    sections: [
      {
        phase: 'main',
        note: ({ config }) =>
          servicePrincipal(config) === undefined
            ? 'Run as the service principal the token belongs to (a metastore admin or a user with CREATE CATALOG).'
            : 'Run as a metastore admin.',
      },
    ],
  },
  delete: {
    title: 'Lakehouse removal',
    sections: [{ phase: 'main', note: 'Run as the catalog owner or a metastore admin.' }],
  },
};

/** Only what the change requires (`workspaceUrl` and `catalog` are non-editable), each with its undo. */
export function lakehouseEdit(previous: LakehouseSetup, next: LakehouseSetup): ChangeSet {
  const prev = previous.config;
  const cfg = next.config;
  const oldPlan = lakehousePlan(previous);
  const newPlan = lakehousePlan(next);
  const oldP = servicePrincipal(prev);
  const newP = servicePrincipal(cfg);
  const steps: ChangeStep[] = [];
  if (!prev.audit.enabled && cfg.audit.enabled) steps.push(...adding(newPlan, 'schema:audit'));
  if (prev.audit.enabled && oldP !== undefined && (!cfg.audit.enabled || oldP !== newP))
    steps.push(...removing(oldPlan, 'audit-schema-grant', 'audit-catalog-grant'));
  if (cfg.audit.enabled && newP !== undefined && (!prev.audit.enabled || oldP !== newP))
    steps.push(...adding(newPlan, 'audit-catalog-grant', 'audit-schema-grant'));
  if (prev.audit.enabled && !cfg.audit.enabled) steps.push(...removing(oldPlan, 'schema:audit'));
  if (newP !== undefined && newP !== oldP)
    // With a token the previous owner is unnamed: ownership cannot be handed back to it.
    steps.push(
      ...change(
        'catalog-owner',
        stepOf(newPlan, 'catalog-owner')?.create ?? [],
        stepOf(oldPlan, 'catalog-owner')?.create ?? [],
      ),
    );
  return {
    title: 'Lakehouse edit',
    sections: [{ note: 'Run as the catalog owner or a metastore admin.', steps }],
  };
}
