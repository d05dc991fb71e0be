/**
 * The lifecycle workflow's remote work: bootstrap (create), apply an edit, tear down (delete).
 * Each task loads the integration, checks that it still belongs to the execution's request (a
 * stale execution does nothing), decrypts what the connector needs and calls it in-process.
 * Connector failures propagate by name: TransientPlatformError is retried by the state
 * machine, anything else is caught into the operation's error status.
 */
import { describeError, logger } from '../observability/logger';
import { isRemoteType, type RemoteType } from '../platforms';
import { PlatformOperationError, type PlatformPayload, TransientPlatformError } from '../platforms/port';
import { IN_FLIGHT_OF } from './lifecycle';
import type { IntegrationRecord, StoredConfig, WorkflowInput } from './model';
import { getIntegration, getTransientSecret } from './repository';
import { decryptSecrets, openCredentials } from './secrets';

export interface TaskResult {
  integrationId: number;
  /** True when the execution no longer matches the integration's current request. */
  skipped: boolean;
}

/** Loaded on first use: types without remote objects never load the platform drivers. */
async function connectorFor(type: RemoteType) {
  const registry = await import('../platforms/connectors');
  return registry.connectorFor(type);
}

async function current(input: WorkflowInput): Promise<IntegrationRecord | undefined> {
  const record = await getIntegration(input.integrationId);
  if (!record || record.requestId !== input.requestId) return undefined;
  if (record.status !== IN_FLIGHT_OF[input.operation]) return undefined;
  return record;
}

async function plainPayload(
  record: IntegrationRecord,
  config: StoredConfig | undefined,
): Promise<PlatformPayload> {
  const plain = await decryptSecrets(record.type, config);
  return { type: record.type, autoBootstrap: record.autoBootstrap, config: plain } as PlatformPayload;
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
      payload: await plainPayload(record, record.config),
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
      previous: await plainPayload(record, record.config),
      payload: await plainPayload(record, record.pendingConfig),
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
      payload: await plainPayload(record, record.config),
      ...(privilegedCredentials ? { privilegedCredentials } : {}),
    });
  }
  return { integrationId: record.id, skipped: false };
}
