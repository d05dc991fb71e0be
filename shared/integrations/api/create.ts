/**
 * POST /integrations: validate the payload and its claims, run the type's validation tests,
 * then write the integration with its uniqueness claims in one transaction and start its
 * creation. FederatedSql-like types (`issuesApiKey`) get their cluster's API key, shown once.
 */
import { ConflictError } from '../../errors';
import { type IntegrationPayload, isRemotePayload, platformOf, uniquenessClaims } from '../../platforms';
import { nextId } from '../../store/counters';
import type { IntegrationRecord } from '../model';
import { encryptedPayload, integrationOwner, requestOwner, secretsOf } from '../secrets';
import { ClaimTakenError, insertWithClaims } from '../store/integrations';
import { configurationSnippet, issueClusterKey } from './cluster-key';
import { type Accepted, acceptOperation, assertClaimsFree, type DryRunResult } from './operation';
import { assertNoPlaceholders } from './rules';

export async function createIntegration(
  payload: IntegrationPayload,
  options: { dryRun: boolean; serviceUrl: string },
): Promise<DryRunResult | Accepted> {
  assertNoPlaceholders(payload);
  // Claims another integration holds: checked first, and again to name a racing request's winner.
  const claimsConflict = () => assertClaimsFree(payload);
  await claimsConflict();
  const remote = isRemotePayload(payload) ? payload : undefined;
  const secrets = remote && secretsOf(remote);
  // Sealed for this request while it validates; for the integration once it has an id.
  const owner = requestOwner();
  const sealed = remote && secrets && (await encryptedPayload(remote, owner, secrets));
  const key = platformOf(payload.type).issuesApiKey ? issueClusterKey() : undefined;
  const accepted = await acceptOperation({
    operation: 'create',
    dryRun: options.dryRun,
    validation: sealed && { operation: 'create', payload: sealed, sealedFor: owner },
    secrets: secrets?.plaintext() ?? [],
    // A racing request may create the host's objects while this one validates: the conflict wins.
    beforeFailing: claimsConflict,
    async write(move, validationResults) {
      const id = await nextId('integrations');
      const config = await secrets?.seal(integrationOwner(id));
      const record: IntegrationRecord = {
        ...move,
        id,
        type: payload.type,
        ...(remote && config ? { autoBootstrap: remote.autoBootstrap, config } : {}),
        version: 1,
        claims: uniquenessClaims(payload).map((c) => c.claim),
        validationResults,
        ...(key ? { apiKeyHash: key.apiKeyHash, apiKeyIssuedAt: move.updatedAt } : {}),
        createdAt: move.updatedAt,
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
      await claimsConflict(); // throws the 400/409 naming the winner
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
