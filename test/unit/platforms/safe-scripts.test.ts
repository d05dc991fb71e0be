/**
 * Removal never touches what the operator supplied: for every SQL type and both setup modes, no
 * script — setup, delete, cleanup, post-cleanup, the cleanup of a failed setup's leftovers, or the
 * undo of a failed edit — drops the account an automatic setup connects as (the operator's
 * privileged account), nor the initial database it connects to first.
 */
import { describe, expect, it } from 'vitest';
import type { ScriptKind, SqlPayload } from '../../../shared/platforms';
import { leftoverScriptFor, scriptFor } from '../../../shared/platforms/scripts';
import { changeRunSteps } from '../../../shared/platforms/sql/plan';
import { statementsOf } from '../../../shared/platforms/sql/script';
import { sqlPlatformOf } from '../../../shared/platforms/sql-platforms';
import { analytics, cloud, cluster, lakehouse, lakehouseOAuth } from './fixtures';

const OPERATOR = 'operator_admin';
const INITIAL = 'operator_db';
const ALL_ON = { impersonation: { enabled: true } };

const automatic: Record<string, SqlPayload> = {
  ClusterWarehouse: cluster(true, { ...ALL_ON, username: OPERATOR, initialDatabase: INITIAL }),
  CloudWarehouse: cloud(true, { ...ALL_ON, username: OPERATOR, audit: { enabled: true } }),
  AnalyticsWarehouse: analytics(true, { ...ALL_ON, username: OPERATOR }),
  Lakehouse: lakehouseOAuth(true, { audit: { enabled: true } }),
};
const manual: Record<string, SqlPayload> = {
  ClusterWarehouse: cluster(false, ALL_ON),
  CloudWarehouse: cloud(false, ALL_ON),
  AnalyticsWarehouse: analytics(false, ALL_ON),
  Lakehouse: lakehouse(false),
};

const KINDS: ScriptKind[] = ['initial-create', 'create', 'delete', 'cleanup', 'post-cleanup'];
const DROP = /^DROP (USER|LOGIN|ROLE|GROUP|DATABASE|CATALOG|SCHEMA) /;

/** The names a statement drops (identifiers in any dialect's quotes, as written). */
function dropped(statement: string): string[] {
  if (!DROP.test(statement)) return [];
  return [...statement.matchAll(/["[`]([^"\]`]+)["\]`]/g)].map((m) => (m[1] ?? '').toLowerCase());
}

async function everyScript(payload: SqlPayload): Promise<string[]> {
  const platform = await sqlPlatformOf(payload.type);
  const scripts = await Promise.all(KINDS.map((kind) => scriptFor(kind, payload)));
  const everything = platform.plan(payload).steps.map((s) => s.key);
  const leftovers = await leftoverScriptFor(payload, everything);
  // An edit that turns every feature off, and its undo.
  const edit = platform.edit(payload, {
    ...payload,
    config: { ...payload.config, impersonation: { enabled: false } },
  } as SqlPayload);
  const undo = changeRunSteps(edit).flatMap((s) => [...s.undo]);
  return [...scripts.flatMap(statementsOf), ...statementsOf(leftovers), ...undo];
}

describe('no script drops what the operator supplied', () => {
  it.each(Object.entries(automatic))(
    '%s, automatic setup: never the operator account or the initial database',
    async (_t, payload) => {
      const drops = (await everyScript(payload)).flatMap(dropped);
      expect(drops.length).toBeGreaterThan(0);
      expect(drops).not.toContain(OPERATOR);
      expect(drops).not.toContain(INITIAL);
    },
  );

  it.each(Object.entries(manual))('%s, manual setup: only objects the plan creates', async (_t, payload) => {
    const platform = await sqlPlatformOf(payload.type);
    const created = new Set(
      platform
        .plan(payload)
        .steps.flatMap((s) => ('name' in s.object ? [s.object.name.toLowerCase()] : []))
        .concat(['service_system_role', 'service_impersonation']),
    );
    for (const name of (await everyScript(payload)).flatMap(dropped))
      expect([...created], name).toContain(name);
  });
});
