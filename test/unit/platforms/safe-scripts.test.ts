/**
 * Removal never touches what the operator supplied: for every SQL type and both setup modes, no
 * script — setup, delete, cleanup, post-cleanup, the cleanup of a failed setup's leftovers, or the
 * undo of a failed edit — drops the account an automatic setup connects as (the operator's
 * privileged account), nor the initial database it connects to first.
 */
import { describe, expect, it } from 'vitest';
import { payloadSchemaFor, type ScriptKind, type SqlPayload } from '../../../shared/platforms';
import { leftoverScriptFor, scriptFor } from '../../../shared/platforms/scripts';
import { changeRunSteps } from '../../../shared/platforms/sql/plan';
import { statementsOf } from '../../../shared/platforms/sql/script';
import { sqlPlatformOf } from '../../../shared/platforms/sql-platforms';
import { goldenCases } from '../../support/platform-suites';
import { cloud, lakehouse, lakehouseOAuth } from './fixtures';

const OPERATOR = 'operator_admin';
const INITIAL = 'operator_db';
const ALL_ON = { impersonation: { enabled: true } };

/**
 * Every registered SQL type's golden cases (its examples), an automatic one connecting as the
 * operator's account to the operator's initial database where its config names them.
 */
const asOperator = (p: SqlPayload): SqlPayload => {
  const config: Record<string, unknown> = { ...p.config };
  if ('username' in config) config.username = OPERATOR;
  if ('initialDatabase' in config) config.initialDatabase = INITIAL;
  const body = { ...p, config };
  return payloadSchemaFor(body).parse(body) as SqlPayload;
};
const golden = goldenCases();
/** And the variants no golden case holds. */
const automatic: [string, SqlPayload][] = [
  ...golden
    .filter(([, p]) => p.autoBootstrap)
    .map(([name, p]): [string, SqlPayload] => [name, asOperator(p)]),
  ['Lakehouse, OAuth M2M and audit', lakehouseOAuth(true, { audit: { enabled: true } })],
];
const manual: [string, SqlPayload][] = [
  ...golden.filter(([, p]) => !p.autoBootstrap),
  ['CloudWarehouse, impersonation', cloud(false, ALL_ON)],
  ['Lakehouse, token', lakehouse(false)],
];

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
  it.each(automatic)(
    '%s, automatic setup: never the operator account or the initial database',
    async (_t, payload) => {
      const drops = (await everyScript(payload)).flatMap(dropped);
      expect(drops.length).toBeGreaterThan(0);
      expect(drops).not.toContain(OPERATOR);
      expect(drops).not.toContain(INITIAL);
    },
  );

  it.each(manual)('%s, manual setup: only objects the plan creates', async (_t, payload) => {
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
