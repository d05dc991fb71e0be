/**
 * The reconciler: integrations left in creating/editing/deleting whose workflow is no longer
 * running (or never started, or has run past the operation timeout) move to the matching
 * error status, so no integration stays in flight — and locked against PUT/DELETE — forever.
 * A create or edit whose execution was lost after remote steps ran is first undone: the
 * reconciler starts an undo-only execution (`compensate: true`), which records the failure.
 */
import { intEnv } from '../../config/env';
import { logger } from '../../observability/logger';
import { IN_FLIGHT_STATUSES, type LifecycleOperation, reconcileVerdict } from '../lifecycle';
import { type IntegrationRecord, leftoverSteps } from '../model';
import { listInFlight } from '../store/integrations';
import { executionState, startLifecycle } from './executions';
import { recordOutcome } from './outcome';

/**
 * An operation running longer than this is failed. The lifecycle's slowest path is one task
 * with TimeoutSeconds 300 tried 3 times plus backoff (~16 minutes), so 30 minutes is safe.
 */
const operationTimeoutSeconds = () => intEnv('INTEGRATION_OPERATION_TIMEOUT_SECONDS', 1800);
/** The API writes the in-flight status just before StartExecution; allow for that gap. */
const startGraceSeconds = () => intEnv('INTEGRATION_START_GRACE_SECONDS', 60);

export interface ReconcileReport {
  examined: number;
  failed: number;
}

export async function reconcileIntegrations(nowMs = Date.now()): Promise<ReconcileReport> {
  const report: ReconcileReport = { examined: 0, failed: 0 };
  for (const status of IN_FLIGHT_STATUSES) {
    for (const record of await listInFlight(status)) {
      report.examined++;
      if (!record.requestId || !record.operation) continue;
      const started = Date.parse(record.operationStartedAt ?? record.updatedAt);
      const verdict = reconcileVerdict({
        execution: await executionState(record.id, record.requestId),
        ageSeconds: (nowMs - started) / 1000,
        timeoutSeconds: operationTimeoutSeconds(),
        startGraceSeconds: startGraceSeconds(),
      });
      if (!verdict.fail) continue;
      if (await undoStarted(record, verdict.reason, (nowMs - started) / 1000)) continue;
      const result = await recordOutcome({
        integrationId: record.id,
        operation: record.operation as LifecycleOperation,
        requestId: record.requestId,
        outcome: 'failed',
        reason: verdict.reason,
      });
      if (result.recorded) {
        report.failed++;
        logger.warn('reconciler failed a stuck integration operation', {
          integrationId: record.id,
          operation: record.operation,
          status: result.status,
        });
      }
    }
  }
  return report;
}

/**
 * For a lost create or edit whose remote steps were not all undone: starts (once) the execution
 * that undoes them and records the failure, and reports whether that is under way. An undo
 * execution that ended without recording, or ran past twice the operation timeout, is given up:
 * the failure is recorded with what is left behind (the cleanup script removes it).
 */
async function undoStarted(record: IntegrationRecord, reason: string, ageSeconds: number): Promise<boolean> {
  const { operation, requestId } = record;
  if (!requestId || (operation !== 'create' && operation !== 'edit')) return false;
  if (leftoverSteps(record).length === 0) return false;
  const undo = await executionState(record.id, requestId, true);
  if (undo === 'missing') {
    await startLifecycle({
      integrationId: record.id,
      operation,
      requestId,
      compensate: true,
      error: { Error: 'OperationAbandoned', Cause: reason },
    });
    logger.warn('reconciler started the undo of a lost operation', { integrationId: record.id, operation });
    return true;
  }
  return (undo === 'RUNNING' || undo === 'PENDING_REDRIVE') && ageSeconds <= 2 * operationTimeoutSeconds();
}
