/**
 * POST /integrations: validate the payload and its claims, run the type's validation tests,
 * then write the integration with its uniqueness claims in one transaction and start its
 * creation. FederatedSql-like types (`issuesApiKey`) get their cluster's API key, shown once.
 */
import { ConflictError } from '../../errors';
import { type IntegrationPayload, isRemotePayload, platformOf, uniquenessClaims } from '../../platforms';
import { nextId } from '../../store/counters';
import type { IntegrationRecord } from '../model';
import {
  encryptedPayload,
  encryptSecrets,
  integrationOwner,
  plaintextSecretsOf,
  requestOwner,
} from '../secrets';
import { ClaimTakenError, insertWithClaims } from '../store/integrations';
import { configurationSnippet, issueClusterKey } from './cluster-key';
import { type Accepted, acceptOperation, assertClaimsFree, type DryRunResult, now } from './operation';
import { assertNoPlaceholders } from './rules';

export async function createIntegration(
  payload: IntegrationPayload,
  options: { dryRun: boolean; serviceUrl: string },
): Promise<DryRunResult | Accepted> {
  assertNoPlaceholders(payload);
  await assertClaimsFree(payload);
  const remote = isRemotePayload(payload) ? payload : undefined;
  // Sealed for this request while it validates; for the integration once it has an id.
  const owner = requestOwner();
  const sealed = remote && (await encryptedPayload(remote, owner));
  const key = platformOf(payload.type).issuesApiKey ? issueClusterKey() : undefined;
  const accepted = await acceptOperation({
    operation: 'create',
    dryRun: options.dryRun,
    validation: sealed && { operation: 'create', payload: sealed, sealedFor: owner },
    secrets: remote ? plaintextSecretsOf(remote.type, remote.config) : [],
    // A racing request may create the host's objects while this one validates: the conflict wins.
    beforeFailing: () => assertClaimsFree(payload),
    async write(requestId, validationResults) {
      const id = await nextId('integrations');
      const config = remote && (await encryptSecrets(remote.type, remote.config, integrationOwner(id)));
      const at = now();
      const record: IntegrationRecord = {
        id,
        type: payload.type,
        ...(remote && config ? { autoBootstrap: remote.autoBootstrap, config } : {}),
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
        return id;
      } catch (error) {
        if (error instanceof ClaimTakenError) return undefined;
        throw error;
      }
    },
    async lost() {
      await assertClaimsFree(payload); // throws the 400/409 naming the winner
      throw new ConflictError('an integration for the same host was created concurrently; retry');
    },
  });
  if (accepted.dryRun) return accepted;
  const { integrationId: id, validationResults } = accepted;
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
