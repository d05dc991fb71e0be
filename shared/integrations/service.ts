/**
 * The integrations use cases behind the HTTP routes. Each one validates, checks the lifecycle
 * rules, runs the type's validation tests (through the platform connector function), and only
 * then makes one conditional write and starts the lifecycle workflow. Secrets are encrypted
 * before anything is stored or sent; responses are redacted by the presenter.
 */
import { randomUUID } from 'node:crypto';
import { intEnv } from '../config/env';
import {
  ConflictError,
  DependencyFailedError,
  InvalidInputError,
  NotFoundError,
  RemoteUnavailableError,
  UnprocessableError,
} from '../errors';
import { logger } from '../observability/logger';
import {
  INTEGRATION_TYPES,
  type IntegrationPayload,
  IntegrationPayloadSchema,
  isRemotePayload,
  isRemoteType,
  platformOf,
  uniquenessClaims,
} from '../platforms';
import type { PlatformPayload, ValidationResults } from '../platforms/port';
import { summarize } from '../platforms/port';
import { ConnectorInvocationError, type SealedValidateRequest, validateRemotely } from '../platforms/remote';
import { nextId } from '../store/counters';
import { parseWith } from '../validation';
import type {
  AcceptedResponse,
  IntegrationResponse,
  IntegrationStatusResponse,
  RegenerateResponse,
} from './api';
import { configurationSnippet, issueClusterKey } from './federated-sql';
import { IN_FLIGHT_OF, type LifecycleOperation, refusalMessage, updateOperation } from './lifecycle';
import type { IntegrationRecord, StoredConfig } from './model';
import { presentIntegration, presentStatus } from './presenter';
import {
  ClaimTakenError,
  claimHolder,
  getIntegration,
  insertWithClaims,
  listIntegrations,
  putTransientSecret,
  releaseStaleClaim,
  updateIntegration as writeIntegration,
} from './repository';
import { assertNoPlaceholders, deleteCredentials, nonEditableChanges } from './rules';
import {
  encryptSecrets,
  restorePlaceholders,
  scrubSecrets,
  sealCredentials,
  secretValuesOf,
  stringValues,
} from './secrets';
import { startLifecycle } from './workflow';

/** Sealed delete credentials live this long; a teardown that starts later fails (deleteError). */
export const CREDENTIALS_TTL_SECONDS = () => intEnv('INTEGRATION_CREDENTIALS_TTL_SECONDS', 900);

export type DryRunResult = { dryRun: true; validationResults: ValidationResults };
export type Accepted = { dryRun: false; response: AcceptedResponse };

const now = () => new Date().toISOString();

async function load(id: number): Promise<IntegrationRecord> {
  const record = await getIntegration(id);
  if (!record) throw new NotFoundError(`integration ${id} not found`);
  return record;
}

// ── reads ───────────────────────────────────────────────────────────────────────────────

export async function listAll(): Promise<IntegrationResponse[]> {
  return Promise.all((await listIntegrations()).map(presentIntegration));
}

export async function getOne(id: number): Promise<IntegrationResponse> {
  return presentIntegration(await load(id));
}

export async function getStatus(id: number): Promise<IntegrationStatusResponse> {
  return presentStatus(await load(id));
}

// ── validation ──────────────────────────────────────────────────────────────────────────

async function encryptedPayload(payload: PlatformPayload): Promise<PlatformPayload> {
  const config = await encryptSecrets(payload.type, payload.config as StoredConfig);
  return { ...payload, config } as PlatformPayload;
}

function storedPayload(record: IntegrationRecord, config: StoredConfig | undefined): PlatformPayload {
  return { type: record.type, autoBootstrap: record.autoBootstrap, config } as PlatformPayload;
}

/**
 * Runs the type's validation tests; any failed test is a 422 carrying the results. `secrets`
 * (the plaintext secrets of the request) are scrubbed from the tests' messages.
 */
async function runValidation(
  request: SealedValidateRequest | undefined,
  secrets: readonly string[] = [],
  /** Called before a failure is reported: a conflict found meanwhile takes precedence. */
  beforeFailing?: () => Promise<void>,
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
    await beforeFailing?.();
    const failed = results.validationTests.filter((t) => t.status === 'failed').map((t) => t.name);
    throw new UnprocessableError(`validation failed: ${failed.join('; ')}`, {
      validationResults: results,
    });
  }
  return results;
}

// ── uniqueness ──────────────────────────────────────────────────────────────────────────

/**
 * Throws the answer for claims another live integration holds: 400 pointing at PUT when that
 * integration's creation failed, 409 naming it otherwise. Claims left by integrations that
 * have left the service (deleted, disabled, or never written) are cleared.
 */
async function assertClaimsFree(payload: IntegrationPayload, ownId?: number): Promise<void> {
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

// ── create ──────────────────────────────────────────────────────────────────────────────

export async function createIntegration(
  payload: IntegrationPayload,
  options: { dryRun: boolean; serviceUrl: string },
): Promise<DryRunResult | Accepted> {
  assertNoPlaceholders(payload);
  await assertClaimsFree(payload);

  const sealed = isRemotePayload(payload) ? await encryptedPayload(payload) : undefined;
  // A racing request may create the host's objects while this one validates: the conflict wins.
  const validationResults = await runValidation(
    sealed && { operation: 'create', payload: sealed },
    isRemotePayload(payload) ? await secretValuesOf(payload.type, payload.config) : [],
    () => assertClaimsFree(payload),
  );
  if (options.dryRun) return { dryRun: true, validationResults };

  const id = await nextId('integrations');
  const requestId = randomUUID();
  const key = platformOf(payload.type).issuesApiKey ? issueClusterKey() : undefined;
  const at = now();
  const record: IntegrationRecord = {
    id,
    type: payload.type,
    ...(sealed ? { autoBootstrap: sealed.autoBootstrap, config: sealed.config as StoredConfig } : {}),
    status: 'creating',
    version: 1,
    claims: uniquenessClaims(payload).map((c) => c.claim),
    validationResults,
    operation: 'create',
    requestId,
    inFlightStatus: 'creating',
    operationStartedAt: at,
    ...(key ? { apiKeyHash: key.apiKeyHash, apiKeyIssuedAt: at } : {}),
    createdAt: at,
    updatedAt: at,
  };
  try {
    await insertWithClaims(record);
  } catch (error) {
    if (!(error instanceof ClaimTakenError)) throw error;
    await assertClaimsFree(payload); // throws the 400/409 naming the winner
    throw new ConflictError('an integration for the same host was created concurrently; retry');
  }
  await start(record, 'create', requestId);
  return {
    dryRun: false,
    response: {
      id: String(id),
      status: 'creating',
      validationResults,
      ...(key
        ? {
            apiKey: key.apiKey,
            configurationSnippet: configurationSnippet({
              integrationId: id,
              apiKey: key.apiKey,
              serviceUrl: options.serviceUrl,
            }),
          }
        : {}),
    },
  };
}

/**
 * Starts the workflow for an accepted request. If the start itself fails, the integration is
 * moved to the operation's error status at once (conditional on this request) and the caller
 * gets a 503; the reconciler covers a crash between the write and the start.
 */
async function start(
  record: IntegrationRecord,
  operation: LifecycleOperation,
  requestId: string,
  credentialsRef?: string,
): Promise<void> {
  try {
    await startLifecycle({
      integrationId: record.id,
      operation,
      requestId,
      ...(credentialsRef ? { credentialsRef } : {}),
    });
  } catch (error) {
    logger.error('could not start the lifecycle workflow', {
      integrationId: record.id,
      operation,
      errorName: (error as Error).name,
    });
    const { recordOutcome } = await import('./outcome');
    await recordOutcome({
      integrationId: record.id,
      operation,
      requestId,
      outcome: 'failed',
      reason: 'the lifecycle workflow could not be started',
    });
    throw new RemoteUnavailableError(
      `the ${operation} of integration ${record.id} could not be started; retry`,
    );
  }
}

// ── update ──────────────────────────────────────────────────────────────────────────────

function refuse(record: IntegrationRecord, request: 'update' | 'delete' | 'regenerate'): void {
  const message = refusalMessage(record.id, record.status, request);
  if (message) throw new ConflictError(message, { status: record.status });
}

/** A request that raced another writer answers 409 rather than its own validation failure. */
async function assertUnchanged(record: IntegrationRecord, request: 'update' | 'delete'): Promise<void> {
  const current = await load(record.id);
  if (current.version !== record.version) await lostRace(record.id, request);
}

/** After a failed conditional write: answer with the state the winner left. */
async function lostRace(id: number, request: 'update' | 'delete' | 'regenerate'): Promise<never> {
  const current = await load(id);
  refuse(current, request);
  throw new ConflictError(`integration ${id} was modified concurrently (status ${current.status}); retry`, {
    status: current.status,
  });
}

export async function updateIntegration(
  id: number,
  body: Record<string, unknown>,
  options: { dryRun: boolean },
): Promise<DryRunResult | Accepted> {
  const record = await load(id);
  refuse(record, 'update');
  const operation = updateOperation(record.status) as LifecycleOperation;
  const creationRetry = operation === 'create';

  if (body.type !== undefined && body.type !== record.type) {
    throw new InvalidInputError(
      `attributes that cannot be edited were changed: type (integration ${id} is ${record.type})`,
    );
  }
  if (!creationRetry && !platformOf(record.type).updatable) {
    throw new InvalidInputError(
      `${record.type} integrations cannot be updated (only a failed creation can be retried with PUT); delete and re-create it`,
    );
  }
  // Put stored secrets back where the caller sent the placeholder, then validate as usual.
  const restored =
    body.config !== null && typeof body.config === 'object'
      ? {
          ...body,
          config: await restorePlaceholders(record.type, body.config as StoredConfig, record.config),
        }
      : body;
  const payload = parseWith(IntegrationPayloadSchema, restored, 'integration');
  assertNoPlaceholders(payload);
  const claims = uniquenessClaims(payload).map((c) => c.claim);
  const changed = nonEditableChanges(record, payload, claims, creationRetry);
  if (changed.length > 0) {
    throw new InvalidInputError(`attributes that cannot be edited were changed: ${changed.join(', ')}`, {
      attributes: changed,
    });
  }
  if (!isRemotePayload(payload)) {
    throw new InvalidInputError(`${payload.type} integrations have no configuration to update`);
  }

  const sealed = await encryptedPayload(payload);
  const secrets = [
    ...(await secretValuesOf(payload.type, payload.config)),
    ...(await secretValuesOf(record.type, record.config)),
  ];
  const validationResults = await runValidation(
    creationRetry
      ? { operation: 'create', payload: sealed, integrationId: id }
      : {
          operation: 'edit',
          payload: sealed,
          previous: storedPayload(record, record.config),
          integrationId: id,
        },
    secrets,
    () => assertUnchanged(record, 'update'),
  );
  if (options.dryRun) return { dryRun: true, validationResults };

  const requestId = randomUUID();
  const status = IN_FLIGHT_OF[operation];
  const common = {
    status,
    inFlightStatus: status,
    operation,
    requestId,
    operationStartedAt: now(),
    updatedAt: now(),
    validationResults,
  };
  const won = await writeIntegration(
    id,
    { version: record.version, status: record.status },
    {
      set: creationRetry
        ? { ...common, config: sealed.config as StoredConfig, autoBootstrap: sealed.autoBootstrap }
        : { ...common, pendingConfig: sealed.config as StoredConfig },
      remove: ['statusMessage'],
    },
  );
  if (!won) return lostRace(id, 'update');
  await start(record, operation, requestId);
  return { dryRun: false, response: { id: String(id), status, validationResults } };
}

// ── delete ──────────────────────────────────────────────────────────────────────────────

export async function deleteIntegration(
  id: number,
  body: Record<string, unknown> | null | undefined,
  options: { dryRun: boolean; forceDisable: boolean },
): Promise<DryRunResult | Accepted> {
  const record = await load(id);
  refuse(record, 'delete');
  const credentials = deleteCredentials(record, body, options.forceDisable);

  if (options.forceDisable) {
    // No remote work, so no validation tests: the operator removes remote objects by hand.
    const validationResults = summarize([]);
    if (options.dryRun) return { dryRun: true, validationResults };
    const won = await writeIntegration(
      id,
      { version: record.version, status: record.status },
      {
        set: {
          status: 'disabled',
          updatedAt: now(),
          statusMessage: 'force-disabled: remote objects were not removed',
        },
        remove: ['inFlightStatus', 'pendingConfig', 'apiKeyHash'],
        releaseClaims: record.claims,
      },
    );
    if (!won) return lostRace(id, 'delete');
    return { dryRun: false, response: { id: String(id), status: 'disabled', validationResults } };
  }

  const validationResults = await runValidation(
    !isRemoteType(record.type)
      ? undefined
      : {
          operation: 'delete',
          payload: storedPayload(record, record.config),
          integrationId: id,
          ...(credentials ? { sealedCredentials: await sealCredentials(credentials) } : {}),
        },
    [...(await secretValuesOf(record.type, record.config)), ...stringValues(credentials)],
    () => assertUnchanged(record, 'delete'),
  );
  if (options.dryRun) return { dryRun: true, validationResults };

  const requestId = randomUUID();
  const credentialsRef = credentials ? `${id}-${requestId}` : undefined;
  const won = await writeIntegration(
    id,
    { version: record.version, status: record.status },
    {
      set: {
        status: 'deleting',
        inFlightStatus: 'deleting',
        operation: 'delete',
        requestId,
        operationStartedAt: now(),
        updatedAt: now(),
        validationResults,
        ...(credentialsRef ? { credentialsRef } : {}),
      },
      remove: ['statusMessage', 'pendingConfig', ...(credentialsRef ? [] : (['credentialsRef'] as const))],
    },
  );
  if (!won) return lostRace(id, 'delete');
  // Only the winner stores credentials: they are sealed, short-lived and passed by reference.
  if (credentials && credentialsRef) {
    await putTransientSecret(
      credentialsRef,
      await sealCredentials(credentials),
      id,
      CREDENTIALS_TTL_SECONDS(),
    );
  }
  await start(record, 'delete', requestId, credentialsRef);
  return { dryRun: false, response: { id: String(id), status: 'deleting', validationResults } };
}

// ── cluster API key ─────────────────────────────────────────────────────────────────────

export async function regenerateKey(id: number, serviceUrl: string): Promise<RegenerateResponse> {
  const record = await load(id);
  if (!platformOf(record.type).issuesApiKey) {
    const keyed = INTEGRATION_TYPES.filter((t) => platformOf(t).issuesApiKey).join(', ');
    throw new InvalidInputError(
      `integration ${id} is ${record.type}; only ${keyed} integrations have an API key`,
    );
  }
  refuse(record, 'regenerate');
  const key = issueClusterKey();
  const won = await writeIntegration(
    id,
    { version: record.version, status: 'enabled' },
    { set: { apiKeyHash: key.apiKeyHash, apiKeyIssuedAt: now(), updatedAt: now() } },
  );
  if (!won) return lostRace(id, 'regenerate');
  return {
    id: String(id),
    apiKey: key.apiKey,
    configurationSnippet: configurationSnippet({ integrationId: id, apiKey: key.apiKey, serviceUrl }),
  };
}
