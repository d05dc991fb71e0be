/**
 * Recording where a lifecycle operation ended. Every write is conditional on the integration
 * still being in the operation's in-flight status under the same request id, so a repeated
 * task (Step Functions retry, reconciler, redelivery) records at most once and a stale
 * execution can never overwrite a newer request.
 */
import { logger } from '../../observability/logger';
import { recordLifecycleOutcome } from '../../observability/metrics';
import { summarize, type ValidationTest } from '../../platforms/port';
import { failed, passed } from '../../platforms/validation-tests';
import {
  IN_FLIGHT_OF,
  type IntegrationStatus,
  isCurrentRequest,
  type LifecycleOperation,
  outcomeStatus,
} from '../lifecycle';
import { type IntegrationRecord, leftoverSteps } from '../model';
import { integrationOwner, scrubSecrets, secretsOf } from '../secrets';
import { getIntegration, type IntegrationChange, updateIntegration } from '../store/integrations';
import { deleteTransientSecret } from '../store/transient-secrets';

export interface TaskError {
  Error?: string;
  Cause?: string;
}

export interface OutcomeInput {
  integrationId: number;
  operation: LifecycleOperation;
  requestId: string;
  outcome: 'succeeded' | 'failed';
  /** The error a Catch captured (Step Functions `{Error, Cause}`). */
  error?: TaskError;
  /** The failure of the undo that followed a failed create or edit (it failed too). */
  undoError?: TaskError;
  /** A reason written by the service itself (reconciler, failed start). */
  reason?: string;
}

/** Errors whose message the service wrote to be shown (the reconciler's abandoned operations too). */
const SAFE_ERRORS = new Set(['PlatformOperationError', 'TransientPlatformError', 'OperationAbandoned']);
const MAX_MESSAGE = 500;

/**
 * A message safe to store and show. Connector errors of the platform port carry messages
 * written to be shown; anything else (a bug, a driver error that might quote a connection
 * string) is reduced to its name.
 */
export function failureReason(error: TaskError | undefined): string {
  if (!error) return 'the operation failed';
  const name = error.Error ?? 'Error';
  let message = error.Cause ?? '';
  try {
    // In AWS, a Lambda error's Cause is JSON: {errorType, errorMessage, trace}.
    const parsed = JSON.parse(message) as { errorMessage?: unknown };
    if (typeof parsed.errorMessage === 'string') message = parsed.errorMessage;
  } catch {
    // a plain message (local runner)
  }
  if (SAFE_ERRORS.has(name) && message) return message.slice(0, MAX_MESSAGE);
  if (name === 'States.Timeout' || name === 'Sandbox.Timedout') return 'the remote operation timed out';
  return `the remote operation failed (${name.slice(0, 100)})`;
}

interface Failure {
  /** The status message: the failure, and what became of the steps that ran. */
  message: string;
  /** The remote work's and its undo's results, added to the integration's validation results. */
  tests: ValidationTest[];
}

/**
 * Why the operation failed, with any of the integration's secrets a connector quoted removed. A
 * create or edit that carried out remote steps says whether they were undone, and what is left
 * if undoing failed too.
 */
async function failure(record: IntegrationRecord, input: OutcomeInput): Promise<Failure> {
  // A secret that does not open cannot have reached a connector, so it cannot be in the reason.
  const owner = integrationOwner(record.id);
  const secrets = [
    ...(await secretsOf(record).openAll(owner, { skipUnreadable: true })),
    ...(await secretsOf({ type: record.type, config: record.pendingConfig }).openAll(owner, {
      skipUnreadable: true,
    })),
  ];
  const reason = scrubSecrets(input.reason ?? failureReason(input.error), secrets);
  const ran = record.appliedSteps ?? [];
  if (input.operation === 'delete' || ran.length === 0) return { message: reason, tests: [] };
  const work = input.operation === 'create' ? 'Remote Setup' : 'Remote Edit';
  if (!input.undoError) {
    return {
      message: `${reason}; the ${ran.length} step(s) that ran were undone`,
      tests: [failed(work, reason), passed('Undo Of The Steps That Ran', `${ran.length} step(s) undone`)],
    };
  }
  const undoReason = scrubSecrets(failureReason(input.undoError), secrets);
  const left = leftoverSteps(record);
  const cleanup =
    input.operation === 'create'
      ? `; POST /integrations/${record.id}/scripts/cleanup answers the script that removes them`
      : '';
  return {
    message: `${reason}; undoing the steps that ran failed too (${undoReason}); left behind: ${left.join(', ')}${cleanup}`,
    tests: [
      failed(work, reason),
      failed('Undo Of The Steps That Ran', `${undoReason}; left behind: ${left.join(', ')}`),
    ],
  };
}

function change(
  record: IntegrationRecord,
  input: OutcomeInput,
  status: IntegrationStatus,
  failure: Failure | undefined,
): IntegrationChange {
  const at = new Date().toISOString();
  const base: IntegrationChange['set'] = { status, updatedAt: at };
  const remove: (keyof IntegrationRecord)[] = ['inFlightStatus', 'credentialsRef', 'remoteFailure'];
  if (failure !== undefined) {
    base.statusMessage = failure.message;
    if (failure.tests.length > 0)
      base.validationResults = summarize([
        ...(record.validationResults?.validationTests ?? []),
        ...failure.tests,
      ]);
  } else {
    remove.push('statusMessage');
  }
  switch (input.operation) {
    case 'edit':
      // Success: the pending config takes effect. Failure: the previous config stays in effect.
      if (input.outcome === 'succeeded' && record.pendingConfig) base.config = record.pendingConfig;
      remove.push('pendingConfig');
      return { set: base, remove };
    case 'delete':
      if (input.outcome === 'succeeded') {
        remove.push('apiKeyHash', 'pendingConfig');
        return { set: base, remove, releaseClaims: record.claims };
      }
      return { set: base, remove };
    default:
      return { set: base, remove };
  }
}

export async function recordOutcome(
  input: OutcomeInput,
): Promise<{ recorded: boolean; status?: IntegrationStatus }> {
  const record = await getIntegration(input.integrationId);
  const inFlight = IN_FLIGHT_OF[input.operation];
  if (!record || !isCurrentRequest(record, input)) return { recorded: false };
  const status = outcomeStatus(input.operation, input.outcome);
  const recorded = await updateIntegration(
    record.id,
    { requestId: input.requestId, status: inFlight },
    change(record, input, status, input.outcome === 'failed' ? await failure(record, input) : undefined),
  );
  if (recorded) {
    logger.info('integration operation finished', {
      integrationId: record.id,
      operation: input.operation,
      outcome: input.outcome,
      status,
    });
    recordLifecycleOutcome({
      integrationType: record.type,
      operation: input.operation,
      outcome: input.outcome,
      status,
    });
    if (record.credentialsRef) await deleteTransientSecret(record.credentialsRef);
  }
  return recorded ? { recorded, status } : { recorded };
}
