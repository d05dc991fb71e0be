/**
 * The integration lifecycle as pure rules: which statuses exist, which requests each status
 * admits, and where a workflow outcome moves an integration. The repository turns these into
 * conditional writes; nothing here touches storage.
 */
import * as z from 'zod/mini';
import { OperationSchema } from '../platforms/port';

const INTEGRATION_STATUSES = [
  'creating',
  'enabled',
  'createError',
  'editing',
  'editError',
  'deleting',
  'deleteError',
  'deleted',
  'disabled',
  'recurringValidationError',
] as const;
export const IntegrationStatusSchema = z.enum(INTEGRATION_STATUSES);
export type IntegrationStatus = z.infer<typeof IntegrationStatusSchema>;

/**
 * The workflow's operations: the validation operations (create, edit, delete) and `repair`, which
 * re-runs the setup steps a periodic check found missing (status `editing` while it runs).
 */
export const LifecycleOperationSchema = z.enum([...OperationSchema.options, 'repair']);
export type LifecycleOperation = z.infer<typeof LifecycleOperationSchema>;

/** Statuses a periodic check runs on (and may move between). */
export const CHECKED_STATUSES: readonly IntegrationStatus[] = ['enabled', 'recurringValidationError'];
export type InFlightStatus = 'creating' | 'editing' | 'deleting';

/** Statuses with a workflow under way: no PUT or DELETE is accepted until it finishes. */
export const IN_FLIGHT_STATUSES: readonly InFlightStatus[] = ['creating', 'editing', 'deleting'];

function isInFlight(status: IntegrationStatus): status is InFlightStatus {
  return (IN_FLIGHT_STATUSES as readonly string[]).includes(status);
}

export const IN_FLIGHT_OF: Record<LifecycleOperation, InFlightStatus> = {
  create: 'creating',
  edit: 'editing',
  delete: 'deleting',
  repair: 'editing',
};

/**
 * Whether an integration still belongs to a workflow execution's request: a stale execution (a
 * newer request replaced it, or it already finished) must not touch it.
 */
export function isCurrentRequest(
  record: { requestId?: string; status: IntegrationStatus },
  input: { requestId: string; operation: LifecycleOperation },
): boolean {
  return record.requestId === input.requestId && record.status === IN_FLIGHT_OF[input.operation];
}

const OUTCOME: Record<LifecycleOperation, { succeeded: IntegrationStatus; failed: IntegrationStatus }> = {
  create: { succeeded: 'enabled', failed: 'createError' },
  edit: { succeeded: 'enabled', failed: 'editError' },
  delete: { succeeded: 'deleted', failed: 'deleteError' },
  repair: { succeeded: 'enabled', failed: 'recurringValidationError' },
};

export function outcomeStatus(
  operation: LifecycleOperation,
  outcome: 'succeeded' | 'failed',
): IntegrationStatus {
  return OUTCOME[operation][outcome];
}

/** Statuses a PUT may start from, and the operation it then runs. */
export function updateOperation(status: IntegrationStatus): LifecycleOperation | undefined {
  if (status === 'createError') return 'create'; // the PUT retries the creation with the new config
  if (status === 'enabled' || status === 'editError' || status === 'recurringValidationError') return 'edit';
  return undefined;
}

/** Statuses a DELETE (or a force-disable) may start from. */
export function canDelete(status: IntegrationStatus): boolean {
  return ['enabled', 'createError', 'editError', 'deleteError', 'recurringValidationError'].includes(status);
}

/** The 409 message for a PUT or DELETE an integration's status refuses (undefined: allowed). */
/**
 * Where the cleanup script of a stored integration applies: after a setup or teardown that
 * failed, and after a force-disable (which removed nothing remotely). Anywhere else the setup is
 * in use or being worked on, and a script that drops it would break a live integration.
 */
const CLEANUP_STATUSES: readonly IntegrationStatus[] = [
  'createError',
  'editError',
  'deleteError',
  'disabled',
];

function cleanupRefusal(id: number, status: IntegrationStatus): string {
  const why =
    status === 'deleted'
      ? 'has been deleted, and its teardown removed its setup'
      : isInFlight(status)
        ? `is ${status}; wait until GET /integrations/${id}/status shows the work has finished`
        : `is ${status}: its setup is in use, and the cleanup script would remove it; to remove a working setup, DELETE the integration (POST /integrations/${id}/scripts/delete answers the removal script for a manual one)`;
  return `integration ${id} ${why}. The cleanup script is for a setup that failed (createError, editError, deleteError) or an integration that was force-disabled`;
}

export function refusalMessage(
  id: number,
  status: IntegrationStatus,
  request: 'update' | 'delete' | 'regenerate' | 'repair' | 'cleanup',
): string | undefined {
  if (request === 'cleanup')
    return CLEANUP_STATUSES.includes(status) ? undefined : cleanupRefusal(id, status);
  if (isInFlight(status)) {
    return `integration ${id} is currently ${status}; wait until GET /integrations/${id}/status shows the work has finished`;
  }
  if (status === 'deleted' || status === 'disabled') {
    const what = status === 'deleted' ? 'has been deleted' : 'has been disabled';
    return request === 'delete'
      ? `integration ${id} ${what}`
      : `integration ${id} ${what} (status ${status}); re-create it with POST /integrations`;
  }
  if (request === 'update' && updateOperation(status) === undefined)
    return `integration ${id} cannot be updated in status ${status}`;
  if (request === 'delete' && !canDelete(status))
    return `integration ${id} cannot be deleted in status ${status}`;
  if (request === 'regenerate' && status !== 'enabled')
    return `integration ${id} is ${status}; a new API key can be issued only while it is enabled`;
  if (request === 'repair' && status !== 'recurringValidationError')
    return `integration ${id} is ${status}; only an integration whose periodic check failed (recurringValidationError) can be repaired`;
  return undefined;
}

/**
 * What the reconciler does with an integration still in flight. The workflow records the
 * outcome before its execution ends, so a finished execution with the integration still in
 * flight means the outcome was lost (aborted, timed out, or recording failed for good).
 */
export type ExecutionState =
  | 'missing'
  | 'RUNNING'
  | 'SUCCEEDED'
  | 'FAILED'
  | 'ABORTED'
  | 'TIMED_OUT'
  | 'PENDING_REDRIVE';

export interface ReconcileInput {
  execution: ExecutionState;
  ageSeconds: number;
  timeoutSeconds: number;
  /** How long a missing execution is tolerated (the API writes the status just before starting it). */
  startGraceSeconds: number;
}

export function reconcileVerdict(input: ReconcileInput): { fail: false } | { fail: true; reason: string } {
  if (input.execution === 'missing') {
    return input.ageSeconds > input.startGraceSeconds
      ? { fail: true, reason: 'the workflow for this operation never started' }
      : { fail: false };
  }
  if (input.execution === 'RUNNING' || input.execution === 'PENDING_REDRIVE') {
    return input.ageSeconds > input.timeoutSeconds
      ? { fail: true, reason: `the operation did not finish within ${input.timeoutSeconds} seconds` }
      : { fail: false };
  }
  return { fail: true, reason: `the workflow ended (${input.execution}) without recording an outcome` };
}
