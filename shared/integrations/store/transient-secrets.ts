/**
 * Transient secrets: a DELETE's privileged credentials, sealed, handed to the workflow by reference
 * and kept only until the teardown runs (TTL).
 */
import { DeleteCommand, GetCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../../store/clients';
import { tableName } from '../../store/tables';
import { putIfAbsent } from '../../store/write';

export async function putTransientSecret(
  ref: string,
  sealed: string,
  integrationId: number,
  ttlSeconds: number,
): Promise<void> {
  const expiresAt = Math.floor(Date.now() / 1000) + ttlSeconds;
  const written = await putIfAbsent(
    tableName('transientSecrets'),
    { id: ref, sealed, integrationId, expiresAt },
    'id',
  );
  if (!written) throw new Error('the transient secret reference is already in use');
}

/** The sealed value, unless missing or past its expiry (TTL deletion lags, so check it here). */
export async function getTransientSecret(ref: string): Promise<string | undefined> {
  const out = await documentClient.send(
    new GetCommand({ TableName: tableName('transientSecrets'), Key: { id: ref }, ConsistentRead: true }),
  );
  const item = out.Item as { sealed?: string; expiresAt?: number } | undefined;
  if (!item?.sealed || (item.expiresAt ?? 0) < Date.now() / 1000) return undefined;
  return item.sealed;
}

export async function deleteTransientSecret(ref: string): Promise<void> {
  await documentClient.send(
    new DeleteCommand({ TableName: tableName('transientSecrets'), Key: { id: ref } }),
  );
}
