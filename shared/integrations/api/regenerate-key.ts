/** POST /integrations/{id}/regenerate: a new cluster API key for a type that issues one, shown once. */
import { InvalidInputError } from '../../errors';
import { platformOf, typesWhere } from '../../platforms';
import { updateIntegration as writeIntegration } from '../store/integrations';
import { configurationSnippet, issueClusterKey } from './cluster-key';
import { lostRace, now, refuse } from './operation';
import { loadIntegration } from './queries';
import type { RegenerateResponse } from './regenerate-contract';

export async function regenerateKey(id: number, serviceUrl: string): Promise<RegenerateResponse> {
  const record = await loadIntegration(id);
  if (!platformOf(record.type).issuesApiKey) {
    const keyed = typesWhere((m) => m.issuesApiKey === true).join(', ');
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
