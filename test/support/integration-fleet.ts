/**
 * A fleet of integrations for the periodic checks' scale test and benchmark: copies of one
 * enabled integration, each on a sandbox host of its own that holds what the setup created on the
 * original's host. Written through the service's own repository and envelope code (secrets
 * sealed for each copy), so a check of a copy is a real check. The caller's process must point at
 * the local cloud (its emulators, LOCAL_MASTER_KEY_FILE and SANDBOX_DIR).
 */

import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { IntegrationRecord } from '../../shared/integrations/model';
import { payloadOf } from '../../shared/integrations/model';
import { decryptedPayload, encryptedPayload, integrationOwner } from '../../shared/integrations/secrets';
import { getIntegration } from '../../shared/integrations/store/integrations';
import { readState, withState } from '../../shared/platforms/sandbox/store';
import { documentClient } from '../../shared/store/clients';
import { tableName } from '../../shared/store/tables';

/** Ids of the copies start here (far above the ids the cloud's own counter hands out). */
const FIRST_COPY_ID = 1_000_000;

export async function seedIntegrationFleet(
  originalId: number,
  count: number,
  options: { parallel?: number; firstId?: number } = {},
): Promise<number[]> {
  const original = await getIntegration(originalId);
  if (!original) throw new Error(`integration ${originalId} not found`);
  const plain = await decryptedPayload(payloadOf(original), integrationOwner(original.id));
  const config = plain.config as Record<string, unknown>;
  const remote = readState(original.type, String(config.host));
  const firstId = options.firstId ?? FIRST_COPY_ID;
  const parallel = options.parallel ?? 50;
  const records: IntegrationRecord[] = [];
  for (let start = 0; start < count; start += parallel) {
    const chunk = Array.from({ length: Math.min(parallel, count - start) }, (_, k) => start + k);
    records.push(
      ...(await Promise.all(
        chunk.map(async (n) => {
          const host = `fleet-${n}.${String(config.host)}`;
          await withState(original.type, host, (state) => {
            Object.assign(state, structuredClone(remote), { host });
          });
          const id = firstId + n;
          const sealed = await encryptedPayload(
            { ...plain, config: { ...config, host } },
            integrationOwner(id),
          );
          return { ...original, ...sealed, id, version: 1, claims: [] } as IntegrationRecord;
        }),
      )),
    );
  }
  // 25 records a call (copies hold no uniqueness claims: their hosts are their own).
  for (let i = 0; i < records.length; i += 25) {
    let pending: Record<string, { PutRequest: { Item: Record<string, unknown> } }[]> = {
      [tableName('integrations')]: records
        .slice(i, i + 25)
        .map((item) => ({ PutRequest: { Item: { ...item } } })),
    };
    for (let round = 0; Object.keys(pending).length > 0; round++) {
      if (round === 10) throw new Error('BatchWriteItem kept integrations unprocessed');
      const out = await documentClient.send(new BatchWriteCommand({ RequestItems: pending }));
      pending = (out.UnprocessedItems ?? {}) as typeof pending;
    }
  }
  return records.map((r) => r.id);
}
