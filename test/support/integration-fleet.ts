/**
 * A fleet of integrations for the periodic checks' scale test and benchmark: copies of one
 * enabled integration, each on a sandbox host of its own that holds what the setup created on the
 * original's host. Written through the service's own repository and envelope code (secrets
 * sealed for each copy), so a check of a copy is a real check. The caller's process must point at
 * the local cloud (its emulators, LOCAL_MASTER_KEY_FILE and SANDBOX_DIR).
 */

import { payloadOf } from '../../shared/integrations/model';
import { getIntegration, insertWithClaims } from '../../shared/integrations/repository';
import { decryptedPayload, encryptedPayload } from '../../shared/integrations/secrets';
import { readState, withState } from '../../shared/platforms/sandbox/store';

/** Ids of the copies start here (far above the ids the cloud's own counter hands out). */
const FIRST_COPY_ID = 1_000_000;

export async function seedIntegrationFleet(
  originalId: number,
  count: number,
  options: { parallel?: number; firstId?: number } = {},
): Promise<number[]> {
  const original = await getIntegration(originalId);
  if (!original) throw new Error(`integration ${originalId} not found`);
  const plain = await decryptedPayload(payloadOf(original));
  const config = plain.config as Record<string, unknown>;
  const remote = readState(original.type, String(config.host));
  const firstId = options.firstId ?? FIRST_COPY_ID;
  const parallel = options.parallel ?? 50;
  const ids: number[] = [];
  for (let start = 0; start < count; start += parallel) {
    const chunk = Array.from({ length: Math.min(parallel, count - start) }, (_, k) => start + k);
    await Promise.all(
      chunk.map(async (n) => {
        const id = firstId + n;
        const host = `fleet-${n}.${String(config.host)}`;
        await withState(original.type, host, (state) => {
          Object.assign(state, structuredClone(remote), { host });
        });
        const sealed = await encryptedPayload({ ...plain, config: { ...config, host } });
        await insertWithClaims({ ...original, ...sealed, id, version: 1, claims: [] });
        ids.push(id);
      }),
    );
  }
  return ids.sort((a, b) => a - b);
}
