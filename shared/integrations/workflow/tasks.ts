/**
 * The lifecycle workflow's remote work: bootstrap (create), apply an edit, tear down (delete),
 * and undo a create or edit that failed part-way (compensate).
 * Each task loads the integration, checks that it still belongs to the execution's request (a
 * stale execution does nothing), decrypts what the connector needs and calls it in-process.
 * Connector failures propagate by name: TransientPlatformError is retried by the state
 * machine, anything else is caught into the operation's error status.
 */
import { describeError, logger } from '../../observability/logger';
import { isRemoteType } from '../../platforms';
import { connectorFor } from '../../platforms/connectors';
import {
  type PlatformConnector,
  PlatformOperationError,
  type PlatformPayload,
  type StepProgress,
  TransientPlatformError,
} from '../../platforms/port';
import { recordCheck } from '../assurance/check';
import { isCurrentRequest } from '../lifecycle';
import { type IntegrationRecord, missingStepsOf, payloadOf, type StoredConfig } from '../model';
import {
  type ConfigSecrets,
  decryptedPayload,
  integrationOwner,
  secretsOf,
  UnreadableSecretError,
} from '../secrets';
import { getIntegration } from '../store/integrations';
import { recordRemoteFailure, recordStep } from '../store/progress';
import { getTransientSecret } from '../store/transient-secrets';
import type { WorkflowInput } from './task-inputs';

export interface TaskResult {
  integrationId: number;
  /** True when the execution no longer matches the integration's current request. */
  skipped: boolean;
}

/**
 * The request's progress on the integration: the steps already done (skipped when the task runs
 * again) and the recorder. A recording refused because the integration no longer belongs to the
 * request stops the work.
 */
function progressOf(record: IntegrationRecord, list: 'appliedSteps' | 'undoneSteps'): StepProgress {
  const requestId = record.requestId ?? '';
  return {
    done: record[list] ?? [],
    async record(...steps) {
      if (!(await recordStep(record.id, requestId, list, steps)))
        throw new TaskFailedError('the integration no longer belongs to this request');
    },
  };
}

/**
 * Runs a create's or an edit's remote work. A failure is kept on the integration before it is
 * thrown: if the process dies during the undo that follows, the task runs again and goes
 * straight back to the undo (the Catch) instead of resuming the work.
 */
async function remoteWork(record: IntegrationRecord, work: () => Promise<void>): Promise<void> {
  if (record.remoteFailure) throw new PlatformOperationError(record.remoteFailure);
  try {
    await work();
  } catch (error) {
    if (error instanceof PlatformOperationError && record.requestId)
      await recordRemoteFailure(record.id, record.requestId, error.message);
    throw error;
  }
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
    // Written to be shown: which stored secret does not open, and what to do about it.
    if (error instanceof UnreadableSecretError) throw new PlatformOperationError(error.message);
    logger.error('workflow task failed', describeError(error));
    const name = error instanceof Error ? error.name : 'Error';
    if ((error as { $retryable?: unknown })?.$retryable) {
      throw new TransientPlatformError(`a retryable service error occurred (${name})`);
    }
    throw new TaskFailedError(`the task failed unexpectedly (${name})`);
  }
}

/** What a task works with once it is open: its integration, its type's connector, and an opener. */
interface RemoteTask {
  record: IntegrationRecord;
  connector: PlatformConnector;
  /** The secrets of the config in effect (a delete's credentials are bound to its connection too). */
  secrets: ConfigSecrets;
  /** The payload of one of the integration's configs (the one in effect by default), secrets opened. */
  open(config?: StoredConfig): Promise<PlatformPayload>;
}

/**
 * The opening every task shares: the integration, if it still belongs to this execution's request
 * (else the task is skipped and does nothing); for a type with remote objects, its connector and
 * its configs' opener (one secrets object per config, each opened when the work needs it). A type
 * without remote objects (FederatedSql: its cluster is configured with the snippet) has no remote
 * work: the task ends with `idle`, as it does when skipped.
 */
async function remoteTask<R extends object>(
  input: WorkflowInput,
  idle: R,
  work: (task: RemoteTask) => Promise<R>,
): Promise<TaskResult & R> {
  const record = await current(input);
  if (!record) return { integrationId: input.integrationId, skipped: true, ...idle };
  if (!isRemoteType(record.type)) return { integrationId: record.id, skipped: false, ...idle };
  const connector = await connectorFor(record.type);
  const owner = integrationOwner(record.id);
  const secrets = secretsOf(record);
  const open = (config = record.config) =>
    decryptedPayload(payloadOf(record, config), owner, config === record.config ? secrets : undefined);
  return { integrationId: record.id, skipped: false, ...(await work({ record, connector, secrets, open })) };
}

const NOTHING = {};

export function bootstrapTask(input: WorkflowInput): Promise<TaskResult> {
  return remoteTask(input, NOTHING, async ({ record, connector, open }) => {
    const payload = await open();
    await remoteWork(record, () =>
      connector.bootstrap({
        integrationId: record.id,
        payload,
        progress: progressOf(record, 'appliedSteps'),
      }),
    );
    return NOTHING;
  });
}

export function applyEditTask(input: WorkflowInput): Promise<TaskResult> {
  return remoteTask(input, NOTHING, async ({ record, connector, open }) => {
    if (!record.pendingConfig) throw new PlatformOperationError('the edit has no pending configuration');
    const previous = await open();
    const payload = await open(record.pendingConfig);
    await remoteWork(record, () =>
      connector.applyEdit({
        integrationId: record.id,
        previous,
        payload,
        progress: progressOf(record, 'appliedSteps'),
      }),
    );
    return NOTHING;
  });
}

export function teardownTask(input: WorkflowInput): Promise<TaskResult> {
  return remoteTask(input, NOTHING, async ({ record, connector, secrets, open }) => {
    let privilegedCredentials: Record<string, unknown> | undefined;
    if (input.credentialsRef) {
      const sealed = await getTransientSecret(input.credentialsRef);
      if (!sealed) {
        throw new PlatformOperationError(
          'the privileged credentials of this delete expired before the teardown ran; send the DELETE again',
        );
      }
      privilegedCredentials = await secrets.openCredentials(sealed, record.id);
    }
    await connector.teardown({
      integrationId: record.id,
      payload: await open(),
      ...(privilegedCredentials ? { privilegedCredentials } : {}),
    });
    return NOTHING;
  });
}

/**
 * After a create or edit failed part-way: undo exactly the steps it carried out, in reverse order
 * (a re-run resumes after the steps already undone). The integration stays in flight meanwhile,
 * so no PUT or DELETE can start until the failure is recorded.
 */
export function compensateTask(input: WorkflowInput): Promise<TaskResult & { undone: number }> {
  const none = { undone: 0 };
  return remoteTask(input, none, async ({ record, connector, open }) => {
    const operation = input.operation;
    const applied = record.appliedSteps ?? [];
    const pending = applied.filter((s) => !(record.undoneSteps ?? []).includes(s));
    // A teardown is retried by a DELETE, and a repair only re-creates what was missing: neither is undone.
    if (operation === 'delete' || operation === 'repair' || pending.length === 0 || !connector.compensate)
      return none;
    const edit = operation === 'edit';
    await connector.compensate({
      integrationId: record.id,
      operation,
      payload: await open(edit ? record.pendingConfig : record.config),
      ...(edit ? { previous: await open() } : {}),
      applied,
      progress: progressOf(record, 'undoneSteps'),
    });
    return { undone: pending.length };
  });
}

/**
 * A repair: re-runs the setup steps the last check found missing, then checks again and records
 * that check. A check that still fails makes the repair fail (`recurringValidationError`).
 */
export function repairTask(input: WorkflowInput): Promise<TaskResult> {
  return remoteTask(input, NOTHING, async ({ record, connector, open }) => {
    if (!connector.repair || !connector.assure)
      throw new PlatformOperationError(`${record.type} integrations have no setup plan to repair`);
    const payload = await open();
    await connector.repair({ integrationId: record.id, payload, steps: missingStepsOf(record) });
    const result = await connector.assure({ integrationId: record.id, payload });
    await recordCheck(record, payload, result, new Date().toISOString(), {
      requestId: record.requestId,
      status: record.status,
    });
    const failing = result.tests.filter((t) => t.status === 'failed');
    if (failing.length > 0)
      throw new PlatformOperationError(
        `after the repair the check still fails: ${failing.map((t) => `${t.name}${t.message ? ` (${t.message})` : ''}`).join('; ')}`,
      );
    return NOTHING;
  });
}
