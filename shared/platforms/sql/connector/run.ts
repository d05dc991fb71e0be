/**
 * The step runner every SQL connector operation drives: statements and plan steps run on a
 * driver's sessions, each failure a `PlatformOperationError` naming the step or statement and the
 * platform's first error line (quoted values elided), unreachable hosts a `TransientPlatformError`.
 */
import {
  ConnectionFailure,
  type ConnectTarget,
  failureMessage,
  type PlatformDriver,
  type PlatformSession,
} from '../../driver';
import {
  PlatformOperationError,
  type StepProgress,
  TransientPlatformError,
  type ValidationTest,
} from '../../port';
import { failed, passed } from '../../validation-tests';
import { describeObject, type RunStep } from '../plan';
import type { Script } from '../script';

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
export async function runSteps(
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

export async function connectForOperation(
  driver: PlatformDriver,
  target: ConnectTarget,
): Promise<PlatformSession> {
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

export type Connected = { session: PlatformSession | undefined; test: ValidationTest };

export async function tryConnect(
  driver: PlatformDriver,
  target: ConnectTarget,
  name: string,
): Promise<Connected> {
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
