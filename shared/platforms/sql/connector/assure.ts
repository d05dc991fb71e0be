/**
 * The periodic check of a SQL setup: every object and grant the plan made is still in place
 * (a missing one is a finding naming it), and no principal the plan created holds a grant no step
 * made (privilege creep: reported, never revoked).
 */
import type { SqlPayload } from '../..';
import type { AssuredStep, PlatformSession } from '../../driver';
import {
  type AssuranceFinding,
  type AssuranceResult,
  type AssureRequest,
  PlatformOperationError,
  TransientPlatformError,
  type ValidationTest,
} from '../../port';
import { failed, passed, skipped, TEST, warning } from '../../validation-tests';
import { createsObject, describeObject, type PlanObject, type RunStep, setupRunSteps } from '../plan';
import type { ConnectorContext } from './context';
import { connectForOperation, tryConnect } from './run';

const SETTING_KINDS = new Set(['setting']);

/** What a missing step's effect is called in a finding. */
function missingFinding(step: RunStep & { object: PlanObject }): AssuranceFinding {
  const kind = step.object.kind;
  const [expected, found] =
    kind === 'grant'
      ? step.object.revoked
        ? ['revoked by the setup', 'granted']
        : ['granted by the setup', 'not granted']
      : kind === 'membership'
        ? ['a member, made by the setup', 'not a member']
        : ['exists, made by the setup', 'absent'];
  return { kind: 'missing', step: step.key, object: describeObject(step.object), expected, found };
}

/**
 * Checks every step of the plan on open sessions (one per database): the type's session says
 * whether the effect is in place, an object's existence is the fallback. Steps it cannot judge
 * (settings on an account the operator owns, grants a driver cannot read) are left out.
 */
async function missingSteps(
  steps: readonly RunStep[],
  sessionFor: (database: string | undefined) => Promise<PlatformSession>,
): Promise<AssuranceFinding[]> {
  const findings: AssuranceFinding[] = [];
  for (const step of steps) {
    const object = step.object;
    if (!object || SETTING_KINDS.has(object.kind)) continue;
    const session = await sessionFor(step.database);
    const assured: AssuredStep = { object, statements: step.statements, database: step.database };
    let present = await session.inPlace?.(assured);
    if (present === undefined && createsObject({ object } as never))
      present = await session.exists(object as never);
    if (present === false) findings.push(missingFinding({ ...step, object }));
  }
  return findings;
}

export async function assure(ctx: ConnectorContext, request: AssureRequest): Promise<AssuranceResult> {
  const platform = await ctx.platform();
  const payload = request.payload as SqlPayload;
  const target = platform.serviceTarget(payload);
  const testName = platform.connectionTest.name;
  const { session: first, test } = await tryConnect(ctx.driver, target, testName);
  if (!first) {
    return {
      tests: [
        test,
        skipped(TEST.setupInPlace, 'skipped: the connection test failed'),
        skipped(TEST.noUnplannedPrivileges, 'skipped: the connection test failed'),
      ],
      findings: [],
    };
  }
  const sessions = new Map<string | undefined, PlatformSession>([[target.database, first]]);
  const sessionFor = async (database: string | undefined) => {
    const key = database ?? target.database;
    const open = sessions.get(key);
    if (open) return open;
    const session = await connectForOperation(ctx.driver, { ...target, database: key });
    sessions.set(key, session);
    return session;
  };
  try {
    const plan = platform.plan(payload);
    const steps = setupRunSteps(plan);
    const missing = await missingSteps(steps, sessionFor);
    const tests: ValidationTest[] = [test];
    tests.push(
      missing.length === 0
        ? passed(TEST.setupInPlace)
        : failed(
            TEST.setupInPlace,
            missing.map((f) => `${f.object}: expected ${f.expected}, found ${f.found}`).join('; '),
          ),
    );
    // Privilege creep: grants on the principals the plan itself creates that no step made.
    const planned = steps.flatMap((s): AssuredStep[] =>
      s.object ? [{ object: s.object, statements: s.statements, database: s.database }] : [],
    );
    const principals = plan.steps.filter(
      (s) => ['role', 'group', 'user', 'login'].includes(s.object.kind) && createsObject(s),
    );
    const unplanned: AssuranceFinding[] = [];
    let listed = principals.length > 0;
    // Each database the plan works in is looked at (schema grants live in their database).
    const databases = [...new Set(steps.map((s) => s.database ?? target.database))];
    for (const principal of principals) {
      if (!('name' in principal.object)) continue;
      const grantee = { kind: principal.object.kind as 'role', name: principal.object.name };
      const extra = new Set<string>();
      for (const database of databases) {
        const held = await (await sessionFor(database)).unplannedGrants?.(grantee, planned);
        if (held === undefined) listed = false;
        for (const grant of held ?? []) extra.add(grant);
      }
      for (const grant of extra)
        unplanned.push({
          kind: 'unplanned',
          object: `${grant} to ${grantee.kind} ${grantee.name}`,
          expected: 'not granted by the setup',
          found: 'granted',
        });
    }
    tests.push(
      unplanned.length > 0
        ? warning(
            TEST.noUnplannedPrivileges,
            `privilege creep (reported, never revoked): ${unplanned.map((f) => f.object).join('; ')}`,
          )
        : listed
          ? passed(TEST.noUnplannedPrivileges)
          : skipped(TEST.noUnplannedPrivileges, 'this platform driver does not list grants'),
    );
    return { tests, findings: [...missing, ...unplanned] };
  } catch (error) {
    if (error instanceof PlatformOperationError || error instanceof TransientPlatformError)
      return { tests: [test, failed(TEST.setupInPlace, error.message)], findings: [] };
    throw error;
  } finally {
    for (const session of sessions.values()) await session.close();
  }
}
