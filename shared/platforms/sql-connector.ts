/**
 * The connector of every SQL platform, shared by the real drivers and the sandbox. It names no
 * type: the type's SQL half (`sqlPlatformOf`) says where to connect, which checks to run and
 * what the setup plan creates; validation, automatic setup, edits and teardown run that plan's
 * statements through a `PlatformDriver`.
 *
 * Over 400 lines: one connector with five operations (validate, bootstrap, edit, compensate,
 * teardown) plus assurance and repair, all driving the same step runner; each is short.
 */

import { platformOf, type SqlPayload, type SqlType } from '.';
import {
  type AssuredStep,
  ConnectionFailure,
  type ConnectTarget,
  failureMessage,
  type PlatformDriver,
  type PlatformSession,
} from './driver';
import {
  type AssuranceFinding,
  type AssuranceResult,
  type AssureRequest,
  type BootstrapRequest,
  type CompensateRequest,
  type EditRequest,
  type PlatformConnector,
  PlatformOperationError,
  type RepairRequest,
  type StepProgress,
  type TeardownRequest,
  TransientPlatformError,
  type ValidateRequest,
  type ValidationTest,
} from './port';
import { removalScriptOf } from './scripts';
import {
  changeRunSteps,
  checkedObjects,
  createsObject,
  describeObject,
  type PlanObject,
  type RunStep,
  removalOrder,
  type SetupPlan,
  setupRunSteps,
} from './sql/plan';
import type { SqlPlatform } from './sql/platform';
import type { Script } from './sql/script';
import { sqlPlatformOf } from './sql-platforms';
import { failed, passed, skipped, TEST, warning } from './validation-tests';

/**
 * Where and as whom removal connects: with the privileged DELETE credentials, or as the service
 * itself for a type whose DELETE takes none (its module has no `deletion` rules). Manual
 * integrations: no connection (the operator runs the delete script).
 */
function teardownTarget(
  platform: SqlPlatform,
  payload: SqlPayload,
  privileged: Record<string, unknown> | undefined,
): ConnectTarget | undefined {
  if (!payload.autoBootstrap) return undefined;
  if (!platformOf(payload.type).deletion) return platform.serviceTarget(payload);
  return privileged && platform.privilegedTarget ? platform.privilegedTarget(payload, privileged) : undefined;
}

export interface RunOptions {
  /** Removal scripts: a statement failing because its object is already gone is skipped. */
  tolerateMissing?: boolean;
  /** Sandbox trigger: fail after this many statements (a failure half-way). */
  stopAfter?: number;
}

/** A statement's first three words, to name it in a failure without its values. */
const opening = (statement: string) => statement.split(' ').slice(0, 3).join(' ');

/**
 * Runs one statement; a failure is a PlatformOperationError worded by `failure` (with the
 * platform's reason, scrubbed). With `tolerateMissing`, a statement whose object is already gone
 * is skipped.
 */
async function runStatement(
  driver: PlatformDriver,
  session: PlatformSession,
  statement: string,
  tolerateMissing: boolean | undefined,
  failure: (reason: string) => string,
): Promise<void> {
  try {
    await session.run(statement);
  } catch (error) {
    if (tolerateMissing && driver.isMissingObjectError(error)) return;
    if (error instanceof PlatformOperationError) throw error;
    throw new PlatformOperationError(failure(safeReason(error)));
  }
}

/**
 * Runs a removal script section by section, one connection per section. A failure names the
 * teardown statement that failed and what it left in place (the openings of that statement and
 * every later one), so a `deleteError` says what remains on the platform.
 */
export async function runScript(
  driver: PlatformDriver,
  target: ConnectTarget,
  script: Script,
  options: RunOptions = {},
): Promise<void> {
  const all = script.sections.flatMap((section) => section.statements);
  let count = 0;
  const stopped = (reason: string) => {
    const left = all.slice(count - 1).map((s) => `${opening(s)} …`);
    return new PlatformOperationError(
      `teardown statement ${count} of ${all.length} (${left[0]}) failed: ${reason}; left in place: ${left.join('; ')}`,
    );
  };
  for (const section of script.sections) {
    const session = await connectForOperation(driver, {
      ...target,
      database: section.database ?? target.database,
    });
    try {
      for (const statement of section.statements) {
        count++;
        if (options.stopAfter !== undefined && count > options.stopAfter)
          throw stopped('the platform refused it (a sandbox failure trigger)');
        try {
          await runStatement(driver, session, statement, options.tolerateMissing, (reason) => reason);
        } catch (error) {
          if (!(error instanceof PlatformOperationError)) throw error;
          throw stopped(error.message);
        }
      }
    } finally {
      await session.close();
    }
  }
}

interface StepOptions {
  progress?: StepProgress;
  /** Undo runs: a statement failing because its object is already gone is skipped. */
  tolerateMissing?: boolean;
  /** Sandbox trigger: the step at this index fails as the platform would refuse it. */
  failAt?: { index: number; trigger: string };
}

/** How a step is named in messages: its key and the object it makes. */
function describeStep(step: Pick<RunStep, 'key' | 'object'>): string {
  return step.object ? `step ${step.key} (${describeObject(step.object)})` : `step ${step.key}`;
}

/**
 * Runs steps in order, one connection per run of steps on the same database, skipping those the
 * progress says already ran and recording each one that completes. A failing step throws a
 * `PlatformOperationError` naming it, its object and the platform's error text.
 */
async function runSteps(
  driver: PlatformDriver,
  target: ConnectTarget,
  steps: readonly RunStep[],
  options: StepOptions = {},
): Promise<void> {
  const done = new Set(options.progress?.done ?? []);
  let session: PlatformSession | undefined;
  let connected: string | undefined;
  try {
    for (const [index, step] of steps.entries()) {
      if (done.has(step.key)) continue;
      const database = step.database ?? target.database;
      if (!session || connected !== database) {
        await session?.close();
        session = undefined;
        session = await connectForOperation(driver, { ...target, database });
        connected = database;
      }
      if (options.failAt && index >= options.failAt.index)
        throw new PlatformOperationError(
          `${describeStep(step)} failed: the platform refused it (a sandbox failure trigger)`,
        );
      for (const statement of step.statements)
        await runStatement(
          driver,
          session,
          statement,
          options.tolerateMissing,
          (reason) => `${describeStep(step)} failed at ${opening(statement)} …: ${reason}`,
        );
      await options.progress?.record(step.key);
    }
  } finally {
    await session?.close();
  }
}

/** Driver error text is kept short and stripped of quoted values (which could echo a literal). */
function safeReason(error: unknown): string {
  const message = String((error as Error)?.message ?? 'error').split('\n')[0] ?? 'error';
  return message.replace(/'[^']*'/g, "'…'").slice(0, 200);
}

async function connectForOperation(driver: PlatformDriver, target: ConnectTarget): Promise<PlatformSession> {
  try {
    return await driver.connect(target);
  } catch (error) {
    if (error instanceof ConnectionFailure) {
      const message = failureMessage(error, target.host, target.port);
      if (error.reason === 'timeout' || error.reason === 'unreachable' || error.reason === 'refused')
        throw new TransientPlatformError(message);
      throw new PlatformOperationError(message);
    }
    throw error;
  }
}

type Connected = { session: PlatformSession | undefined; test: ValidationTest };

async function tryConnect(driver: PlatformDriver, target: ConnectTarget, name: string): Promise<Connected> {
  try {
    const session = await driver.connect(target);
    return { session, test: passed(name) };
  } catch (error) {
    if (error instanceof ConnectionFailure)
      return {
        session: undefined,
        test: failed(name, failureMessage(error, target.host, target.port)),
      };
    return { session: undefined, test: failed(name, `connecting to ${target.host}:${target.port} failed`) };
  }
}

/** The objects a manual setup lacks (by description), checked on an open session. */
async function missingObjects(session: PlatformSession, plan: SetupPlan): Promise<string[]> {
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

export interface SqlConnectorHooks {
  /**
   * Sandbox triggers: how many steps (statements, for teardown) to run before the platform
   * refuses one, and the trigger's name (undefined: no failure).
   */
  failAfter?(
    operation: 'bootstrap' | 'edit' | 'compensate' | 'teardown',
    target: ConnectTarget,
    total: number,
  ): Promise<{ index: number; trigger: string } | undefined>;
}

const optional = <K extends string, V>(key: K, value: V | undefined) =>
  (value === undefined ? {} : { [key]: value }) as Partial<Record<K, V>>;

const count = (s: Script) => s.sections.reduce((n, x) => n + x.statements.length, 0);

/** The steps a create or edit runs (setup plan or change set), for running and for undoing. */
async function workSteps(
  platform: SqlPlatform,
  operation: 'create' | 'edit',
  payload: SqlPayload,
  previous?: SqlPayload,
) {
  if (operation === 'create') return setupRunSteps(platform.plan(payload));
  if (!previous) throw new PlatformOperationError('the edit has no configuration in effect to start from');
  return changeRunSteps(platform.edit(previous, payload));
}

export function sqlConnector(
  type: SqlType,
  driver: PlatformDriver,
  hooks: SqlConnectorHooks = {},
): PlatformConnector {
  const platformFor = () => sqlPlatformOf(type);

  async function validate(request: ValidateRequest): Promise<ValidationTest[]> {
    const platform = await platformFor();
    const payload = request.payload as SqlPayload;
    const testName = platform.connectionTest.name;
    if (request.operation === 'delete') {
      const target = teardownTarget(platform, payload, request.privilegedCredentials);
      if (!target)
        return [
          skipped(testName, 'nothing to check: the service removes no remote objects for this integration'),
        ];
      const { session, test } = await tryConnect(driver, target, testName);
      await session?.close();
      return [test];
    }
    const creating = request.operation === 'create';
    const target = platform.serviceTarget(payload);
    const { session, test } = await tryConnect(driver, target, testName);
    const result = platform.connectionTest.result?.(target, test.status);
    const tests: ValidationTest[] = [result ? { ...test, result } : test];
    try {
      tests.push(...(await platform.checks({ payload, creating, session })));
      if (payload.autoBootstrap)
        tests.push(...(await freshObjectTests(platform, request, creating, session)));
      else tests.push(await manualSetupTest(platform.plan(payload), session, creating));
    } finally {
      await session?.close();
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

  /** A manual integration: the operator ran the scripts; check that everything is there. */
  async function verifyManual(platform: SqlPlatform, payload: SqlPayload, operation: 'bootstrap' | 'edit') {
    const target = platform.serviceTarget(payload);
    if ((await hooks.failAfter?.(operation, target, 0)) !== undefined)
      throw new PlatformOperationError('the platform failed while verifying the setup');
    const session = await connectForOperation(driver, target);
    try {
      const missing = await missingObjects(session, platform.plan(payload));
      if (missing.length > 0)
        throw new PlatformOperationError(`the manual setup is incomplete: missing ${missing.join(', ')}`);
    } finally {
      await session.close();
    }
  }

  return {
    type,
    validate,
    async bootstrap(request: BootstrapRequest) {
      const platform = await platformFor();
      const payload = request.payload as SqlPayload;
      if (!payload.autoBootstrap) return verifyManual(platform, payload, 'bootstrap');
      const target = platform.serviceTarget(payload);
      const steps = await workSteps(platform, 'create', payload);
      await runSteps(driver, target, steps, {
        ...optional('progress', request.progress),
        ...optional('failAt', await hooks.failAfter?.('bootstrap', target, steps.length)),
      });
    },
    async applyEdit(request: EditRequest) {
      const platform = await platformFor();
      const payload = request.payload as SqlPayload;
      if (!payload.autoBootstrap) return verifyManual(platform, payload, 'edit');
      const target = platform.serviceTarget(payload);
      const steps = await workSteps(platform, 'edit', payload, request.previous as SqlPayload);
      await runSteps(driver, target, steps, {
        ...optional('progress', request.progress),
        ...optional('failAt', await hooks.failAfter?.('edit', target, steps.length)),
      });
    },
    async assure(request: AssureRequest): Promise<AssuranceResult> {
      const platform = await platformFor();
      const payload = request.payload as SqlPayload;
      const target = platform.serviceTarget(payload);
      const testName = platform.connectionTest.name;
      const { session: first, test } = await tryConnect(driver, target, testName);
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
        const session = await connectForOperation(driver, { ...target, database: key });
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
    },
    async repair(request: RepairRequest) {
      const platform = await platformFor();
      const payload = request.payload as SqlPayload;
      const wanted = new Set(request.steps);
      const steps = setupRunSteps(platform.plan(payload)).filter((s) => wanted.has(s.key));
      await runSteps(driver, platform.serviceTarget(payload), steps);
    },
    async compensate(request: CompensateRequest) {
      const platform = await platformFor();
      const payload = request.payload as SqlPayload;
      if (!payload.autoBootstrap) return;
      const applied = new Set(request.applied);
      const previous = request.previous as SqlPayload | undefined;
      const ran = (await workSteps(platform, request.operation, payload, previous)).filter((s) =>
        applied.has(s.key),
      );
      const undo = removalOrder(ran).map((s): RunStep => ({ ...s, statements: s.undo, undo: s.statements }));
      // A step removed with another (a schema with its database) is undone when that one is: both
      // are recorded in one write, so a crash never leaves one of them recorded without the other.
      const removedWith = (key: string): string[] =>
        ran.filter((s) => s.removedWith === key).flatMap((s) => [s.key, ...removedWith(s.key)]);
      const progress = {
        done: request.progress.done,
        async record(step: string) {
          await request.progress.record(step, ...removedWith(step));
        },
      };
      const target = platform.serviceTarget(payload);
      await runSteps(driver, target, undo, {
        progress,
        tolerateMissing: true,
        ...optional('failAt', await hooks.failAfter?.('compensate', target, undo.length)),
      });
    },
    async teardown(request: TeardownRequest) {
      const platform = await platformFor();
      const payload = request.payload as SqlPayload;
      // Manual integrations are removed by the operator's delete script.
      const target = teardownTarget(platform, payload, request.privilegedCredentials);
      if (!target) return;
      const script = removalScriptOf(platform, payload);
      await runScript(driver, target, script, {
        tolerateMissing: true,
        stopAfter: (await hooks.failAfter?.('teardown', target, count(script)))?.index,
      });
    },
  };
}
