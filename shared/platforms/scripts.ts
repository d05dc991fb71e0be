/**
 * The one source of statements: which script each endpoint returns and which statements each
 * connector runs, per type. Script endpoints render these; automatic bootstrap, edit and
 * teardown execute them (real drivers or the sandbox).
 */
import * as analytics from './analytics-warehouse/scripts';
import * as cloud from './cloud-warehouse/scripts';
import * as cluster from './cluster-warehouse/scripts';
import * as lakehouse from './lakehouse/scripts';
import type { PlatformPayload } from './port';
import type { Dialect } from './sql/quote';
import { type Script, script } from './sql/script';

/** Types whose remote setup is SQL. */
export const SQL_TYPES = ['AnalyticsWarehouse', 'ClusterWarehouse', 'CloudWarehouse', 'Lakehouse'] as const;
export type SqlType = (typeof SQL_TYPES)[number];
export type SqlPayload = Extract<PlatformPayload, { type: SqlType }>;

export const DIALECT: Record<SqlType, Dialect> = {
  AnalyticsWarehouse: 'tsql',
  ClusterWarehouse: 'cluster',
  CloudWarehouse: 'cloud',
  Lakehouse: 'lakehouse',
};

export function isSqlPayload(payload: PlatformPayload): payload is SqlPayload {
  return (SQL_TYPES as readonly string[]).includes(payload.type);
}

export type ScriptKind = 'initial-create' | 'create' | 'edit' | 'delete' | 'cleanup' | 'post-cleanup';

/** Types each script endpoint accepts (the spec's lists; Lakehouse added to create and edit as its text says). */
export const SCRIPT_TYPES: Record<Exclude<ScriptKind, 'delete'>, readonly SqlType[]> = {
  'initial-create': ['AnalyticsWarehouse', 'ClusterWarehouse', 'CloudWarehouse'],
  create: ['AnalyticsWarehouse', 'ClusterWarehouse', 'CloudWarehouse', 'Lakehouse'],
  edit: ['AnalyticsWarehouse', 'ClusterWarehouse', 'CloudWarehouse', 'Lakehouse'],
  cleanup: ['AnalyticsWarehouse', 'ClusterWarehouse', 'CloudWarehouse'],
  'post-cleanup': ['AnalyticsWarehouse', 'ClusterWarehouse', 'CloudWarehouse'],
};

/** Everything automatic setup creates (and what a manual operator runs, both steps together). */
export function setupScript(payload: SqlPayload): Script {
  switch (payload.type) {
    case 'AnalyticsWarehouse':
      return analytics.fullCreateScript(payload);
    case 'ClusterWarehouse':
      return cluster.fullCreateScript(payload);
    case 'CloudWarehouse':
      return cloud.createScript(payload);
    case 'Lakehouse':
      return lakehouse.createScript(payload);
  }
}

/** Removes exactly what `setupScript` made. */
export function removalScript(payload: SqlPayload): Script {
  switch (payload.type) {
    case 'AnalyticsWarehouse':
      return analytics.deleteScript(payload);
    case 'ClusterWarehouse':
      return cluster.deleteScript(payload);
    case 'CloudWarehouse':
      return cloud.deleteScript(payload);
    case 'Lakehouse':
      return lakehouse.deleteScript(payload);
  }
}

export class ScriptTypeMismatchError extends Error {
  override name = 'ScriptTypeMismatchError';
}

export function changeScript(previous: SqlPayload, next: SqlPayload): Script {
  if (previous.type !== next.type)
    throw new ScriptTypeMismatchError('the type of an integration cannot change');
  switch (next.type) {
    case 'AnalyticsWarehouse':
      return analytics.editScript(previous as typeof next, next);
    case 'ClusterWarehouse':
      return cluster.editScript(previous as typeof next, next);
    case 'CloudWarehouse':
      return cloud.editScript(previous as typeof next, next);
    case 'Lakehouse':
      return lakehouse.editScript(previous as typeof next, next);
  }
}

function noStep(title: string, why: string): Script {
  const s = script(title, []);
  return { ...s, title: `${title}: ${why}` };
}

/** The script an endpoint returns (edit needs the configuration in effect). */
export function scriptFor(kind: ScriptKind, payload: SqlPayload, previous?: SqlPayload): Script {
  switch (kind) {
    case 'initial-create':
      if (payload.type === 'AnalyticsWarehouse') return analytics.initialCreateScript(payload);
      if (payload.type === 'ClusterWarehouse') return cluster.initialCreateScript(payload);
      return noStep(
        `${payload.type} initial setup`,
        'this type has a single setup step; run the create script',
      );
    case 'create':
      if (payload.type === 'AnalyticsWarehouse') return analytics.createStepScript(payload);
      if (payload.type === 'ClusterWarehouse') return cluster.createStepScript(payload);
      return setupScript(payload);
    case 'edit':
      if (!previous) throw new ScriptTypeMismatchError('an edit script needs the configuration in effect');
      return changeScript(previous, payload);
    case 'delete':
      return removalScript(payload);
    case 'cleanup':
      if (payload.type === 'AnalyticsWarehouse') return analytics.cleanupScript(payload);
      return removalScript(payload);
    case 'post-cleanup':
      if (payload.type === 'AnalyticsWarehouse') return analytics.postCleanupScript(payload);
      return noStep(`${payload.type} post-cleanup`, 'only AnalyticsWarehouse has a second removal step');
  }
}
