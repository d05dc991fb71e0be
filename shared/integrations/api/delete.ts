/**
 * DELETE /integrations/{id}: remove what the service created remotely (an automatic
 * integration's teardown, with the privileged credentials the body carries), or force-disable
 * without remote work. Credentials never enter the workflow: they are sealed, stored for a short
 * time and passed by reference.
 */
import { intEnv } from '../../config/env';
import { ConflictError } from '../../errors';
import { isRemoteType } from '../../platforms';
import { summarize } from '../../platforms/port';
import { payloadOf } from '../model';
import { integrationOwner, secretsOf, stringValues } from '../secrets';
import { updateIntegration as writeIntegration } from '../store/integrations';
import { putTransientSecret } from '../store/transient-secrets';
import {
  type Accepted,
  acceptOperation,
  assertUnchanged,
  type DryRunResult,
  lostRace,
  moveInFlight,
  now,
  refuse,
} from './operation';
import { loadIntegration } from './queries';
import { deleteCredentials } from './rules';

/** Sealed delete credentials live this long; a teardown that starts later fails (deleteError). */
const CREDENTIALS_TTL_SECONDS = () => intEnv('INTEGRATION_CREDENTIALS_TTL_SECONDS', 900);

export async function deleteIntegration(
  id: number,
  body: Record<string, unknown> | null | undefined,
  options: { dryRun: boolean; forceDisable: boolean },
): Promise<DryRunResult | Accepted> {
  const record = await loadIntegration(id);
  refuse(record, 'delete');
  // ADR 0016: data sources keep an integration; the write below is conditional on this version,
  // which every data-source write bumps, so one added after this read makes the delete lose.
  const dataSources = record.dataSourceCount ?? 0;
  if (dataSources > 0 && !options.forceDisable)
    throw new ConflictError(
      `integration ${id} has ${dataSources} data source${dataSources === 1 ? '' : 's'}; delete ${dataSources === 1 ? 'it' : 'them'} first (DELETE /data-sources/{id}) or pass forceDisable=true, which removes them from the service`,
      { status: record.status },
    );
  const credentials = deleteCredentials(record, body, options.forceDisable);
  if (options.forceDisable)
    return forceDisable(id, record.version, record.status, record.claims, options.dryRun);

  const credentialsRefOf = (requestId: string) => (credentials ? `${id}-${requestId}` : undefined);
  const owner = integrationOwner(id);
  const secrets = secretsOf(record);
  // Read first: a stored secret that no longer opens is a clear 409 before any remote work.
  const storedSecrets = await secrets.openAll(owner);
  const accepted = await acceptOperation({
    operation: 'delete',
    dryRun: options.dryRun,
    validation: !isRemoteType(record.type)
      ? undefined
      : {
          operation: 'delete',
          payload: payloadOf(record),
          integrationId: id,
          sealedFor: owner,
          ...(credentials ? { sealedCredentials: await secrets.sealCredentials(credentials, id) } : {}),
        },
    secrets: [...storedSecrets, ...stringValues(credentials)],
    beforeFailing: () => assertUnchanged(record, 'delete'),
    write(move, validationResults) {
      const credentialsRef = credentialsRefOf(move.requestId);
      return moveInFlight(record, move, {
        set: { validationResults, ...(credentialsRef ? { credentialsRef } : {}) },
        remove: ['pendingConfig', ...(credentialsRef ? [] : (['credentialsRef'] as const))],
      });
    },
    lost: () => lostRace(id, 'delete'),
    // Only the winner stores credentials: they are sealed, short-lived and passed by reference.
    async prepare(requestId) {
      const credentialsRef = credentialsRefOf(requestId);
      if (!credentials || !credentialsRef) return {};
      await putTransientSecret(
        credentialsRef,
        await secrets.sealCredentials(credentials, id),
        id,
        CREDENTIALS_TTL_SECONDS(),
      );
      return { credentialsRef };
    },
  });
  if (accepted.dryRun) return accepted;
  return {
    dryRun: false,
    response: { id: String(id), status: 'deleting', validationResults: accepted.validationResults },
  };
}

/** No remote work, so no validation tests: the operator removes remote objects by hand. */
async function forceDisable(
  id: number,
  version: number,
  status: Parameters<typeof writeIntegration>[1]['status'],
  claims: readonly string[],
  dryRun: boolean,
): Promise<DryRunResult | Accepted> {
  const validationResults = summarize([]);
  if (dryRun) return { dryRun: true, validationResults };
  const won = await writeIntegration(
    id,
    { version, status },
    {
      set: {
        status: 'disabled',
        updatedAt: now(),
        statusMessage: 'force-disabled: remote objects were not removed',
      },
      remove: ['inFlightStatus', 'pendingConfig', 'apiKeyHash'],
      releaseClaims: claims,
    },
  );
  if (!won) return lostRace(id, 'delete');
  return { dryRun: false, response: { id: String(id), status: 'disabled', validationResults } };
}
