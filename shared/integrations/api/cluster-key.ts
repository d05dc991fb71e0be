/**
 * FederatedSql: the service issues an API key for the cluster's access-control plugin and
 * returns it once, inside a configuration snippet. Only the key's SHA-256 is stored, so the key
 * can never be shown again; `regenerate` issues a new one and the old one stops matching.
 */
import { createHash, randomBytes } from 'node:crypto';

const FEDERATED_SQL_KEY_PREFIX = 'cwfs_';

export interface IssuedKey {
  apiKey: string;
  apiKeyHash: string;
}

export function issueClusterKey(): IssuedKey {
  const apiKey = `${FEDERATED_SQL_KEY_PREFIX}${randomBytes(32).toString('base64url')}`;
  return { apiKey, apiKeyHash: hashClusterKey(apiKey) };
}

export function hashClusterKey(apiKey: string): string {
  return createHash('sha256').update(apiKey, 'utf8').digest('hex');
}

/**
 * The properties file the cluster's access-control plugin reads (placed in the cluster's
 * configuration directory as `access-control.properties`).
 */
export function configurationSnippet(input: {
  integrationId: number;
  apiKey: string;
  serviceUrl: string;
}): string {
  return [
    '# Access-control plugin configuration for this FederatedSql cluster.',
    '# Shown once: store it now; POST /integrations/{id}/regenerate issues a new key.',
    'access-control.name=causeway',
    `causeway.service-url=${input.serviceUrl}`,
    `causeway.integration-id=${input.integrationId}`,
    `causeway.api-key=${input.apiKey}`,
    'causeway.cache-ttl=30s',
    '',
  ].join('\n');
}
