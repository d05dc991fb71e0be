/**
 * Recording where a lifecycle operation ended. Every write is conditional on the integration
 * still being in the operation's in-flight status under the same request id, so a repeated
 * task (Step Functions retry, reconciler, redelivery) records at most once and a stale
 * execution can never overwrite a newer request.
 */
import { logger } from '../observability/logger';
import { recordLifecycleOutcome } from '../observability/metrics';
import {
  IN_FLIGHT_OF,
  type IntegrationStatus,
  isCurrentRequest,
  type LifecycleOperation,
  outcomeStatus,
} from './lifecycle';
import type { IntegrationRecord } from './model';
import {
  deleteTransientSecret,
  getIntegration,
  type IntegrationChange,
  updateIntegration,
} from './repository';
import { scrubSecrets, secretValuesOf } from './secrets';

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
  /** A reason written by the service itself (reconciler, failed start). */
  reason?: string;
}

const SAFE_ERRORS = new Set(['PlatformOperationError', 'TransientPlatformError']);
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

/** The failure message, with any of the integration's secrets a connector quoted removed. */
async function failureMessage(record: IntegrationRecord, input: OutcomeInput): Promise<string> {
  const message = input.reason ?? failureReason(input.error);
  const secrets = [
    ...(await secretValuesOf(record.type, record.config)),
    ...(await secretValuesOf(record.type, record.pendingConfig)),
  ];
  return scrubSecrets(message, secrets);
}

function change(
  record: IntegrationRecord,
  input: OutcomeInput,
  status: IntegrationStatus,
  message: string | undefined,
): IntegrationChange {
  const at = new Date().toISOString();
  const base: IntegrationChange['set'] = { status, updatedAt: at };
  const remove: (keyof IntegrationRecord)[] = ['inFlightStatus', 'credentialsRef'];
  if (message !== undefined) {
    base.statusMessage = message;
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
    change(
      record,
      input,
      status,
      input.outcome === 'failed' ? await failureMessage(record, input) : undefined,
    ),
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
