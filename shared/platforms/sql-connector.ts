/**
 * The connector of every SQL platform, shared by the real drivers and the sandbox. It names no
 * type: the type's SQL half (`sqlPlatformOf`) says where to connect, which checks to run and
 * what the setup plan creates; validation, automatic setup, edits and teardown run that plan's
 * statements through a `PlatformDriver`.
 */

import { platformOf, type SqlPayload, type SqlType } from '.';
import {
  ConnectionFailure,
  type ConnectTarget,
  failureMessage,
  type PlatformDriver,
  type PlatformSession,
} from './driver';
import {
  type BootstrapRequest,
  type EditRequest,
  type PlatformConnector,
  PlatformOperationError,
  type TeardownRequest,
  TransientPlatformError,
  type ValidateRequest,
  type ValidationTest,
} from './port';
import { editScriptOf, removalScriptOf, setupScriptOf } from './scripts';
import { checkedObjects, createsObject, describeObject, type SetupPlan } from './sql/plan';
import type { SqlPlatform } from './sql/platform';
import type { Script } from './sql/script';
import { sqlPlatformOf } from './sql-platforms';
import { failed, passed, skipped, TEST } from './validation-tests';

/**
 * Where and as whom removal connects: with the privileged DELETE credentials, or as the service
 * itself for a type whose DELETE takes none (its module has no `deletion` rules). Manual
 * integrations: no connection (the operator runs the delete script).
 */
export function teardownTarget(
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

/** Runs a script section by section, one connection per section. */
export async function runScript(
  driver: PlatformDriver,
  target: ConnectTarget,
  script: Script,
  options: RunOptions = {},
): Promise<void> {
  let count = 0;
  for (const section of script.sections) {
    const session = await connectForOperation(driver, {
      ...target,
      database: section.database ?? target.database,
    });
    try {
      for (const statement of section.statements) {
        if (options.stopAfter !== undefined && count >= options.stopAfter)
          throw new PlatformOperationError(`the platform failed after ${count} of the setup statements`);
        try {
          await session.run(statement);
        } catch (error) {
          if (options.tolerateMissing && driver.isMissingObjectError(error)) continue;
          if (error instanceof PlatformOperationError) throw error;
          throw new PlatformOperationError(
            `statement ${count + 1} (${statement.split(' ').slice(0, 3).join(' ')} …) failed: ${safeReason(error)}`,
          );
        } finally {
          count++;
        }
      }
    } finally {
      await session.close();
    }
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
 * The "does not exist" tests of an automatic setup: each test checks the objects of the steps
 * that name it and are new (on an edit, a step whose object the previous plan already had is
 * not new); a test with nothing new to check is skipped.
 */
async function freshObjectTests(
  platform: SqlPlatform,
  payload: SqlPayload,
  previous: SqlPayload | undefined,
  creating: boolean,
  session: PlatformSession | undefined,
): Promise<ValidationTest[]> {
  const plan = platform.plan(payload);
  const before = creating || !previous ? undefined : platform.plan(previous);
  const existedBefore = (key: string, object: unknown) =>
    before?.steps.some((s) => s.key === key && JSON.stringify(s.object) === JSON.stringify(object)) ?? false;
  const tests: ValidationTest[] = [];
  for (const { name, createOnly } of platform.freshObjectTests) {
    if (createOnly && !creating) continue;
    const fresh = plan.steps.filter((s) => s.mustNotExist === name && !existedBefore(s.key, s.object));
    if (fresh.length === 0) {
      tests.push(skipped(name, 'nothing new to create'));
      continue;
    }
    if (!session) {
      tests.push(skipped(name, 'skipped: the connection test failed'));
      continue;
    }
    const present: string[] = [];
    for (const step of fresh)
      if (createsObject(step) && (await session.exists(step.object)))
        present.push(describeObject(step.object));
    tests.push(
      present.length === 0
        ? passed(name)
        : failed(name, `${present.join(', ')} already exists; remove it or choose another name`),
    );
  }
  return tests;
}

export interface SqlConnectorHooks {
  /** Sandbox triggers: how many statements to run before failing (undefined: no failure). */
  failAfter?(
    operation: 'bootstrap' | 'edit' | 'teardown',
    target: ConnectTarget,
    total: number,
  ): number | undefined;
}

const count = (s: Script) => s.sections.reduce((n, x) => n + x.statements.length, 0);

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
        tests.push(
          ...(await freshObjectTests(
            platform,
            payload,
            request.previous as SqlPayload | undefined,
            creating,
            session,
          )),
        );
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
    if (hooks.failAfter?.(operation, target, 0) !== undefined)
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
      const script = setupScriptOf(platform, payload);
      await runScript(driver, target, script, {
        stopAfter: hooks.failAfter?.('bootstrap', target, count(script)),
      });
    },
    async applyEdit(request: EditRequest) {
      const platform = await platformFor();
      const payload = request.payload as SqlPayload;
      if (!payload.autoBootstrap) return verifyManual(platform, payload, 'edit');
      const target = platform.serviceTarget(payload);
      const script = editScriptOf(platform, request.previous as SqlPayload, payload);
      await runScript(driver, target, script, {
        stopAfter: hooks.failAfter?.('edit', target, count(script)),
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
        stopAfter: hooks.failAfter?.('teardown', target, count(script)),
      });
    },
  };
}
