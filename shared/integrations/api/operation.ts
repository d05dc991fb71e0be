/**
 * Accepting a lifecycle operation, the one path every create, update and delete takes: run the
 * type's validation tests (through the platform connector function), answer a dry run with
 * them, otherwise make one conditional write (the in-flight status, and for a create the
 * uniqueness claims) and start the workflow. A request that loses the write answers with the
 * state the winner left.
 */
import { randomUUID } from 'node:crypto';
import {
  ConflictError,
  DependencyFailedError,
  InvalidInputError,
  RemoteUnavailableError,
  UnprocessableError,
} from '../../errors';
import { logger } from '../../observability/logger';
import { type IntegrationPayload, uniquenessClaims } from '../../platforms';
import { summarize, type ValidationResults } from '../../platforms/port';
import {
  ConnectorInvocationError,
  type SealedValidateRequest,
  validateRemotely,
} from '../../platforms/remote';
import { IN_FLIGHT_OF, type InFlightStatus, type LifecycleOperation, refusalMessage } from '../lifecycle';
import type { IntegrationRecord } from '../model';
import { scrubSecrets } from '../secrets';
import {
  claimHolder,
  getIntegration,
  type IntegrationChange,
  releaseStaleClaim,
  updateIntegration,
} from '../store/integrations';
import { PROGRESS_ATTRIBUTES } from '../store/progress';
import { startLifecycle } from '../workflow/executions';
import { recordOutcome } from '../workflow/outcome';
import type { AcceptedResponse } from './contracts';
import { loadIntegration } from './queries';

export type DryRunResult = { dryRun: true; validationResults: ValidationResults };
export type Accepted = { dryRun: false; response: AcceptedResponse };
type Request = 'update' | 'delete' | 'regenerate' | 'repair';

export const now = () => new Date().toISOString();

/** Throws the 409 for a request the integration's status refuses. */
export function refuse(record: IntegrationRecord, request: Request): void {
  const message = refusalMessage(record.id, record.status, request);
  if (message) throw new ConflictError(message, { status: record.status });
}

/** After a failed conditional write: answer with the state the winner left. */
export async function lostRace(id: number, request: Request): Promise<never> {
  const current = await loadIntegration(id);
  refuse(current, request);
  throw new ConflictError(`integration ${id} was modified concurrently (status ${current.status}); retry`, {
    status: current.status,
  });
}

/** A request that raced another writer answers 409 rather than its own validation failure. */
export async function assertUnchanged(record: IntegrationRecord, request: Request): Promise<void> {
  const current = await loadIntegration(record.id);
  if (current.version !== record.version) await lostRace(record.id, request);
}

/**
 * Throws the answer for claims another live integration holds: 400 pointing at PUT when that
 * integration's creation failed, 409 naming it otherwise. Claims left by integrations that
 * have left the service (deleted, disabled, or never written) are cleared.
 */
export async function assertClaimsFree(payload: IntegrationPayload, ownId?: number): Promise<void> {
  for (const { claim, describe } of uniquenessClaims(payload)) {
    const holder = await claimHolder(claim);
    if (holder === undefined || holder === ownId) continue;
    const existing = await getIntegration(holder);
    if (!existing || existing.status === 'deleted' || existing.status === 'disabled') {
      await releaseStaleClaim(claim, holder);
      continue;
    }
    if (existing.status === 'createError') {
      throw new InvalidInputError(
        `integration ${holder} for ${describe} previously failed to create; use PUT /integrations/${holder} to update it and retry the creation`,
      );
    }
    throw new ConflictError(
      `an integration already exists for ${describe}: integration ${holder} (${existing.type}, status ${existing.status})`,
    );
  }
}

/**
 * Runs the type's validation tests; any failed test is a 422 carrying the results. `secrets`
 * (the plaintext secrets of the request) are scrubbed from the tests' messages.
 */
async function runValidation(
  request: SealedValidateRequest | undefined,
  secrets: readonly string[],
  /** Called before a failure is reported: a conflict found meanwhile takes precedence. */
  beforeFailing: () => Promise<void>,
): Promise<ValidationResults> {
  let results: ValidationResults;
  try {
    const tests = request ? await validateRemotely(request) : [];
    results = summarize(
      tests.map((t) => (t.message === undefined ? t : { ...t, message: scrubSecrets(t.message, secrets) })),
    );
  } catch (error) {
    if (!(error instanceof ConnectorInvocationError)) throw error;
    logger.error('the platform connector failed', { errorMessage: error.message });
    throw new DependencyFailedError('the platform connector could not run the validation tests; retry');
  }
  if (results.status === 'failed') {
    await beforeFailing();
    const failed = results.validationTests.filter((t) => t.status === 'failed').map((t) => t.name);
    throw new UnprocessableError(`validation failed: ${failed.join('; ')}`, {
      validationResults: results,
    });
  }
  return results;
}

/**
 * What every accepted request writes on its integration: the operation's in-flight status (also
 * the reconciler's sparse index key) and the request it belongs to.
 */
export interface InFlightMove {
  status: InFlightStatus;
  inFlightStatus: InFlightStatus;
  operation: LifecycleOperation;
  requestId: string;
  operationStartedAt: string;
  updatedAt: string;
}

function inFlightMove(operation: LifecycleOperation, requestId: string): InFlightMove {
  const at = now();
  const status = IN_FLIGHT_OF[operation];
  return { status, inFlightStatus: status, operation, requestId, operationStartedAt: at, updatedAt: at };
}

/**
 * The accepting write of a stored integration (update, delete, repair): `move` plus the request's
 * own attributes, conditional on the integration being as the request read it; the last
 * operation's message and remote progress are cleared. The integration's id, or undefined when
 * another request won.
 */
export async function moveInFlight(
  record: IntegrationRecord,
  move: InFlightMove,
  change: Pick<IntegrationChange, 'set' | 'remove'> = {},
): Promise<number | undefined> {
  const won = await updateIntegration(
    record.id,
    { version: record.version, status: record.status },
    {
      set: { ...move, ...change.set },
      remove: ['statusMessage', ...PROGRESS_ATTRIBUTES, ...(change.remove ?? [])],
    },
  );
  return won ? record.id : undefined;
}

export interface Operation {
  operation: LifecycleOperation;
  dryRun: boolean;
  /** The validation tests to run (undefined: a type without remote objects has none). */
  validation: SealedValidateRequest | undefined;
  /** The request's plaintext secrets, scrubbed from validation messages. */
  secrets: readonly string[];
  /** Before a failed validation is reported: throws the conflict another request caused meanwhile. */
  beforeFailing(): Promise<void>;
  /**
   * The one conditional write that accepts the request, carrying `move`: the integration's id, or
   * undefined when another request won.
   */
  write(move: InFlightMove, validationResults: ValidationResults): Promise<number | undefined>;
  /** After a lost write: throws the answer describing the winner. */
  lost(): Promise<never>;
  /** After the write, before the workflow starts: what the execution is handed by reference. */
  prepare?(requestId: string): Promise<{ credentialsRef?: string }>;
}

export type Acceptance =
  | DryRunResult
  | { dryRun: false; integrationId: number; requestId: string; validationResults: ValidationResults };

/** Validate, write, start: the accepted request, or the dry run's results. */
export async function acceptOperation(op: Operation): Promise<Acceptance> {
  const validationResults = await runValidation(op.validation, op.secrets, () => op.beforeFailing());
  if (op.dryRun) return { dryRun: true, validationResults };
  const requestId = randomUUID();
  const integrationId =
    (await op.write(inFlightMove(op.operation, requestId), validationResults)) ?? (await op.lost());
  const { credentialsRef } = (await op.prepare?.(requestId)) ?? {};
  await start(integrationId, op.operation, requestId, credentialsRef);
  return { dryRun: false, integrationId, requestId, validationResults };
}

/**
 * Starts the workflow for an accepted request. If the start itself fails, the integration is
 * moved to the operation's error status at once (conditional on this request) and the caller
 * gets a 503; the reconciler covers a crash between the write and the start.
 */
async function start(
  integrationId: number,
  operation: LifecycleOperation,
  requestId: string,
  credentialsRef?: string,
): Promise<void> {
  try {
    await startLifecycle({
      integrationId,
      operation,
      requestId,
      ...(credentialsRef ? { credentialsRef } : {}),
    });
  } catch (error) {
    logger.error('could not start the lifecycle workflow', {
      integrationId,
      operation,
      errorName: (error as Error).name,
    });
    await recordOutcome({
      integrationId,
      operation,
      requestId,
      outcome: 'failed',
      reason: 'the lifecycle workflow could not be started',
    });
    throw new RemoteUnavailableError(
      `the ${operation} of integration ${integrationId} could not be started; retry`,
    );
  }
}
