/**
 * PUT /integrations/{id}: an edit of an enabled (or failed-edit) integration, or the retry of a
 * failed creation with a corrected config. Secrets sent as the redaction placeholder are restored
 * from the stored integration before the type's schema applies; the edit's config stays pending
 * until the workflow succeeds.
 */
import { InvalidInputError } from '../../errors';
import { isRemotePayload, payloadSchemaFor, platformOf, uniquenessClaims } from '../../platforms';
import { parseWith } from '../../validation';
import { IN_FLIGHT_OF, type LifecycleOperation, updateOperation } from '../lifecycle';
import { type IntegrationRecord, leftoverSteps, payloadOf, type StoredConfig } from '../model';
import { encryptedPayload, integrationOwner, secretsOf } from '../secrets';
import {
  type Accepted,
  acceptOperation,
  assertUnchanged,
  type DryRunResult,
  lostRace,
  moveInFlight,
  refuse,
} from './operation';
import { loadIntegration } from './queries';
import { assertNoPlaceholders, assertSecretsResent, nonEditableChanges } from './rules';

/** What a failed creation left behind, with the config it used (validation names them as such). */
function leftoversOf(record: IntegrationRecord) {
  const leftovers = leftoverSteps(record);
  return leftovers.length > 0 ? { previous: payloadOf(record), leftovers } : {};
}

export async function updateIntegration(
  id: number,
  body: Record<string, unknown>,
  options: { dryRun: boolean },
): Promise<DryRunResult | Accepted> {
  const record = await loadIntegration(id);
  refuse(record, 'update');
  const operation = updateOperation(record.status) as LifecycleOperation;
  const owner = integrationOwner(id);
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
  // Put stored secrets back where the caller sent the placeholder, then validate as usual; the
  // stored secrets count only while the connection is unchanged.
  const stored = secretsOf(record);
  const { config, restored } =
    body.config !== null && typeof body.config === 'object'
      ? await stored.restore(body.config as StoredConfig, owner)
      : { config: body.config, restored: [] };
  const restoredBody = { ...body, config };
  const payload = parseWith(payloadSchemaFor(restoredBody), restoredBody, 'integration');
  assertNoPlaceholders(payload);
  const claims = uniquenessClaims(payload).map((c) => c.claim);
  const changed = nonEditableChanges(record, payload, claims, creationRetry);
  if (changed.length > 0) {
    throw new InvalidInputError(`attributes that cannot be edited were changed: ${changed.join(', ')}`, {
      attributes: changed,
    });
  }
  assertSecretsResent(record.type, record.config, 'config' in payload ? payload.config : undefined, restored);
  if (!isRemotePayload(payload)) {
    throw new InvalidInputError(`${payload.type} integrations have no configuration to update`);
  }

  const secrets = secretsOf(payload);
  const sealed = await encryptedPayload(payload, owner, secrets);
  const accepted = await acceptOperation({
    operation,
    dryRun: options.dryRun,
    validation: creationRetry
      ? { operation: 'create', payload: sealed, integrationId: id, sealedFor: owner, ...leftoversOf(record) }
      : {
          operation: 'edit',
          payload: sealed,
          previous: payloadOf(record),
          integrationId: id,
          sealedFor: owner,
        },
    // A stored secret that no longer opens is being replaced: it cannot be in any message.
    secrets: [...secrets.plaintext(), ...(await stored.openAll(owner, { skipUnreadable: true }))],
    beforeFailing: () => assertUnchanged(record, 'update'),
    write: (move, validationResults) =>
      moveInFlight(record, move, {
        set: creationRetry
          ? { validationResults, config: sealed.config as StoredConfig, autoBootstrap: sealed.autoBootstrap }
          : { validationResults, pendingConfig: sealed.config as StoredConfig },
      }),
    lost: () => lostRace(id, 'update'),
  });
  if (accepted.dryRun) return accepted;
  return {
    dryRun: false,
    response: {
      id: String(id),
      status: IN_FLIGHT_OF[operation],
      validationResults: accepted.validationResults,
    },
  };
}
