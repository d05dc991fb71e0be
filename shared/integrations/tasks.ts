/**
 * The lifecycle workflow's remote work: bootstrap (create), apply an edit, tear down (delete).
 * Each task loads the integration, checks that it still belongs to the execution's request (a
 * stale execution does nothing), decrypts what the connector needs and calls it in-process.
 * Connector failures propagate by name: TransientPlatformError is retried by the state
 * machine, anything else is caught into the operation's error status.
 */
import { describeError, logger } from '../observability/logger';
import { isRemoteType } from '../platforms';
import { connectorFor } from '../platforms/connectors';
import { PlatformOperationError, TransientPlatformError } from '../platforms/port';
import { isCurrentRequest } from './lifecycle';
import { type IntegrationRecord, payloadOf, type WorkflowInput } from './model';
import { getIntegration, getTransientSecret } from './repository';
import { decryptedPayload, openCredentials } from './secrets';

export interface TaskResult {
  integrationId: number;
  /** True when the execution no longer matches the integration's current request. */
  skipped: boolean;
}

/** The integration, if it still belongs to this execution's request (else the task does nothing). */
async function current(input: WorkflowInput): Promise<IntegrationRecord | undefined> {
  const record = await getIntegration(input.integrationId);
  return record && isCurrentRequest(record, input) ? record : undefined;
}

/** An unexpected failure of a task, reduced to the error's name. */
export class TaskFailedError extends Error {
  override name = 'TaskFailedError';
}

/**
 * What a task throws becomes the execution's error `Cause`, which Step Functions keeps in the
 * execution history: connector errors (written to be shown) pass through by name; anything else
 * is logged with its message scrubbed and re-thrown with its name only, so a driver or SDK
 * message quoting a connection string can never land in the history. SDK errors that the SDK
 * itself marks retryable become TransientPlatformError, which the state machine retries.
 */
export async function guardTask<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof PlatformOperationError || error instanceof TransientPlatformError) throw error;
    logger.error('workflow task failed', describeError(error));
    const name = error instanceof Error ? error.name : 'Error';
    if ((error as { $retryable?: unknown })?.$retryable) {
      throw new TransientPlatformError(`a retryable service error occurred (${name})`);
    }
    throw new TaskFailedError(`the task failed unexpectedly (${name})`);
  }
}

export async function bootstrapTask(input: WorkflowInput): Promise<TaskResult> {
  const record = await current(input);
  if (!record) return { integrationId: input.integrationId, skipped: true };
  // Types without remote objects (FederatedSql: its cluster is configured with the snippet) skip this.
  if (isRemoteType(record.type)) {
    const connector = await connectorFor(record.type);
    await connector.bootstrap({
      integrationId: record.id,
      payload: await decryptedPayload(payloadOf(record)),
    });
  }
  return { integrationId: record.id, skipped: false };
}

export async function applyEditTask(input: WorkflowInput): Promise<TaskResult> {
  const record = await current(input);
  if (!record) return { integrationId: input.integrationId, skipped: true };
  if (isRemoteType(record.type)) {
    if (!record.pendingConfig) throw new PlatformOperationError('the edit has no pending configuration');
    const connector = await connectorFor(record.type);
    await connector.applyEdit({
      integrationId: record.id,
      previous: await decryptedPayload(payloadOf(record)),
      payload: await decryptedPayload(payloadOf(record, record.pendingConfig)),
    });
  }
  return { integrationId: record.id, skipped: false };
}

export async function teardownTask(input: WorkflowInput): Promise<TaskResult> {
  const record = await current(input);
  if (!record) return { integrationId: input.integrationId, skipped: true };
  if (isRemoteType(record.type)) {
    let privilegedCredentials: Record<string, unknown> | undefined;
    if (input.credentialsRef) {
      const sealed = await getTransientSecret(input.credentialsRef);
      if (!sealed) {
        throw new PlatformOperationError(
          'the privileged credentials of this delete expired before the teardown ran; send the DELETE again',
        );
      }
      privilegedCredentials = await openCredentials(sealed);
    }
    const connector = await connectorFor(record.type);
    await connector.teardown({
      integrationId: record.id,
      payload: await decryptedPayload(payloadOf(record)),
      ...(privilegedCredentials ? { privilegedCredentials } : {}),
    });
  }
  return { integrationId: record.id, skipped: false };
}
