/**
 * Changing the platform: an automatic setup (bootstrap), an edit, the repair of what a check found
 * missing, and undoing the steps a failed setup or edit ran (compensation); a manual setup is
 * verified instead of made. Each runs the plan's steps through the step runner, recording them.
 */
import type { SqlPayload } from '../..';
import {
  type BootstrapRequest,
  type CompensateRequest,
  type EditRequest,
  PlatformOperationError,
  type RepairRequest,
} from '../../port';
import { changeRunSteps, type RunStep, removalOrder, setupRunSteps } from '../plan';
import type { SqlPlatform } from '../platform';
import { type ConnectorContext, optional } from './context';
import { connectForOperation, runSteps } from './run';
import { missingObjects } from './validate';

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

/** A manual integration: the operator ran the scripts; check that everything is there. */
async function verifyManual(
  ctx: ConnectorContext,
  platform: SqlPlatform,
  payload: SqlPayload,
  operation: 'bootstrap' | 'edit',
) {
  const target = platform.serviceTarget(payload);
  if ((await ctx.hooks.failAfter?.(operation, target, 0)) !== undefined)
    throw new PlatformOperationError('the platform failed while verifying the setup');
  const session = await connectForOperation(ctx.driver, target);
  try {
    const missing = await missingObjects(session, platform.plan(payload));
    if (missing.length > 0)
      throw new PlatformOperationError(`the manual setup is incomplete: missing ${missing.join(', ')}`);
  } finally {
    await session.close();
  }
}

/** An automatic setup's or edit's steps, run and recorded; a manual one is verified instead. */
async function runWork(
  ctx: ConnectorContext,
  request: BootstrapRequest | EditRequest,
  operation: 'bootstrap' | 'edit',
): Promise<void> {
  const platform = await ctx.platform();
  const payload = request.payload as SqlPayload;
  if (!payload.autoBootstrap) return verifyManual(ctx, platform, payload, operation);
  const target = platform.serviceTarget(payload);
  const previous = 'previous' in request ? (request.previous as SqlPayload) : undefined;
  const steps = await workSteps(platform, operation === 'bootstrap' ? 'create' : 'edit', payload, previous);
  await runSteps(ctx.driver, target, steps, {
    ...optional('progress', request.progress),
    ...optional('failAt', await ctx.hooks.failAfter?.(operation, target, steps.length)),
  });
}

export const bootstrap = (ctx: ConnectorContext, request: BootstrapRequest) =>
  runWork(ctx, request, 'bootstrap');

export const applyEdit = (ctx: ConnectorContext, request: EditRequest) => runWork(ctx, request, 'edit');

export async function repair(ctx: ConnectorContext, request: RepairRequest): Promise<void> {
  const platform = await ctx.platform();
  const payload = request.payload as SqlPayload;
  const wanted = new Set(request.steps);
  const steps = setupRunSteps(platform.plan(payload)).filter((s) => wanted.has(s.key));
  await runSteps(ctx.driver, platform.serviceTarget(payload), steps);
}

export async function compensate(ctx: ConnectorContext, request: CompensateRequest): Promise<void> {
  const platform = await ctx.platform();
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
  await runSteps(ctx.driver, target, undo, {
    progress,
    tolerateMissing: true,
    ...optional('failAt', await ctx.hooks.failAfter?.('compensate', target, undo.length)),
  });
}
