/**
 * The validation tests of a SQL type: the connection test, the type's own checks, then for an
 * automatic setup that nothing it is about to create exists yet, for a manual one that the
 * operator's scripts made everything.
 */
import type { SqlPayload } from '../..';
import type { PlatformSession } from '../../driver';
import type { ValidateRequest, ValidationTest } from '../../port';
import { failed, passed, skipped, TEST } from '../../validation-tests';
import { checkedObjects, createsObject, describeObject, type PlanObject, type SetupPlan } from '../plan';
import type { SqlPlatform } from '../platform';
import type { ConnectorContext } from './context';
import { tryConnect } from './run';
import { teardownTarget } from './teardown';

/** The objects a manual setup lacks (by description), checked on an open session. */
export async function missingObjects(session: PlatformSession, plan: SetupPlan): Promise<string[]> {
  const missing: string[] = [];
  for (const object of checkedObjects(plan))
    if (!(await session.exists(object))) missing.push(describeObject(object));
  return missing;
}

/**
 * The "does not exist" tests of an automatic setup: every object the plan is about to create
 * must not exist yet (on an edit, only the objects the previous plan did not have). A type's
 * named tests check the steps that name them; the other objects are checked together, except
 * those that live inside another new object (a schema in a new database). An object that an
 * earlier attempt of the same integration left behind says so, and names the cleanup script.
 */
async function freshObjectTests(
  platform: SqlPlatform,
  request: ValidateRequest,
  creating: boolean,
  session: PlatformSession | undefined,
): Promise<ValidationTest[]> {
  const payload = request.payload as SqlPayload;
  const previous = request.previous as SqlPayload | undefined;
  const plan = platform.plan(payload);
  const before = creating || !previous ? undefined : platform.plan(previous);
  const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
  const existedBefore = (key: string, object: unknown) =>
    before?.steps.some((s) => s.key === key && same(s.object, object)) ?? false;
  // Objects an earlier attempt of this integration created and did not remove (by the plan of the
  // config that attempt used).
  const leftBehind =
    request.leftovers && previous
      ? platform
          .plan(previous)
          .steps.filter((s) => request.leftovers?.includes(s.key))
          .map((s) => s.object)
      : [];
  const cleanup = `remove it with the script of POST /integrations/${request.integrationId ?? '{id}'}/scripts/cleanup`;
  const presentMessage = (objects: PlanObject[]) =>
    objects
      .map((o) =>
        leftBehind.some((l) => same(l, o))
          ? `${describeObject(o)} is a leftover of this integration's earlier attempt; ${cleanup}`
          : `${describeObject(o)} already exists; remove it or choose another name`,
      )
      .join('; ');
  const fresh = plan.steps.filter((s) => createsObject(s) && !existedBefore(s.key, s.object));
  const groups = [
    ...platform.freshObjectTests.map(({ name, createOnly }) => ({
      name,
      skip: createOnly === true && !creating,
      steps: fresh.filter((s) => s.mustNotExist === name),
    })),
    // Every other object the plan creates; a plan with none has no such test.
    ...(() => {
      const steps = fresh.filter((s) => !s.mustNotExist && !s.removedWith);
      return steps.length === 0 ? [] : [{ name: TEST.setupObjectsDoNotExist, skip: false, steps }];
    })(),
  ];
  const tests: ValidationTest[] = [];
  for (const { name, skip, steps } of groups) {
    if (skip) continue;
    if (steps.length === 0) {
      tests.push(skipped(name, 'nothing new to create'));
      continue;
    }
    if (!session) {
      tests.push(skipped(name, 'skipped: the connection test failed'));
      continue;
    }
    const present: PlanObject[] = [];
    for (const step of steps)
      if (createsObject(step) && (await session.exists(step.object))) present.push(step.object);
    tests.push(present.length === 0 ? passed(name) : failed(name, presentMessage(present)));
  }
  return tests;
}

async function manualSetupTest(
  plan: SetupPlan,
  session: PlatformSession | undefined,
  creating: boolean,
): Promise<ValidationTest> {
  const name = TEST.manualSetup;
  if (!session) return skipped(name, 'skipped: the connection test failed');
  const missing = await missingObjects(session, plan);
  return missing.length === 0
    ? passed(name)
    : failed(
        name,
        `missing ${missing.join(', ')}: run the script from POST /integrations/scripts/${creating ? 'create' : `{id}/scripts/edit`} first`,
      );
}

export async function validate(ctx: ConnectorContext, request: ValidateRequest): Promise<ValidationTest[]> {
  const platform = await ctx.platform();
  const payload = request.payload as SqlPayload;
  const testName = platform.connectionTest.name;
  if (request.operation === 'delete') {
    const target = teardownTarget(platform, payload, request.privilegedCredentials);
    if (!target)
      return [
        skipped(testName, 'nothing to check: the service removes no remote objects for this integration'),
      ];
    const { session, test } = await tryConnect(ctx.driver, target, testName);
    await session?.close();
    return [test];
  }
  const creating = request.operation === 'create';
  const target = platform.serviceTarget(payload);
  const { session, test } = await tryConnect(ctx.driver, target, testName);
  const result = platform.connectionTest.result?.(target, test.status);
  const tests: ValidationTest[] = [result ? { ...test, result } : test];
  try {
    tests.push(...(await platform.checks({ payload, creating, session })));
    if (payload.autoBootstrap) tests.push(...(await freshObjectTests(platform, request, creating, session)));
    else tests.push(await manualSetupTest(platform.plan(payload), session, creating));
  } finally {
    await session?.close();
  }
  return tests;
}
