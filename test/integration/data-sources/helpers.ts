/**
 * Helpers for the data-source tests (ADR 0016): an enabled ObjectStore integration of the file's
 * own (its own bucket, and on request its own account, so sandbox state and check leases are not
 * shared with other files), objects put into and removed from the sandbox as `sandbox s3 put|rm`
 * do, and the data-source routes.
 */
import { expect } from 'vitest';
import { type ApiResponse, call, useLocalCloudEnv } from '../../support/api';
import { payloads, uid } from '../../unit/integrations/fixtures';
import { expectSettles } from '../integrations/helpers';

export interface Store {
  id: number;
  bucket: string;
  account: string;
  region: string;
  /** `s3://<bucket>/data/` */
  location: string;
}

/** A 12-digit account id of this file's own (one sandbox state and check lease per account). */
export const ownAccount = () => `7${String(Math.floor(Math.random() * 1e11)).padStart(11, '0')}`;

export async function objectStore(
  options: { account?: string; change?: (config: Record<string, unknown>) => void } = {},
): Promise<Store> {
  const id = uid();
  const p = payloads(id).ObjectStore as { config: Record<string, unknown> };
  const bucket = `bucket-${id}`;
  p.config.cloudAccountId = options.account ?? p.config.cloudAccountId;
  options.change?.(p.config);
  const created = await call('POST', '/integrations', { body: p });
  expect(created.status, created.text).toBe(202);
  await expectSettles(created.body.id, 'enabled');
  return {
    id: Number(created.body.id),
    bucket,
    account: String(p.config.cloudAccountId),
    region: String(p.config.cloudRegion),
    location: `s3://${bucket}/data/`,
  };
}

async function objects() {
  useLocalCloudEnv();
  const { sandboxObjects } = await import('../../../shared/platforms/sandbox/objects');
  return sandboxObjects();
}

/** Puts objects into the store's sandbox account (as `sandbox s3 put` does). */
export async function put(store: Store, ...paths: string[]): Promise<void> {
  const o = await objects();
  for (const path of paths) await o.put({ account: store.account, region: store.region }, path);
}

/** Removes objects from the store's sandbox account (as `sandbox s3 rm` does). */
export async function remove(store: Store, path: string): Promise<number> {
  return (await objects()).remove({ account: store.account, region: store.region }, path);
}

/** A folder of its own under the location with one object in it; its prefix (ends with `/`). */
export async function folder(store: Store): Promise<string> {
  const prefix = `s3://${store.bucket}/data/f-${uid()}/`;
  await put(store, `${prefix}object.csv`);
  return prefix;
}

export function register(
  store: Pick<Store, 'id'>,
  dataSources: { dataSourceName: string; prefix: string }[],
  key?: string,
  // biome-ignore lint/suspicious/noExplicitAny: bodies are asserted field by field
): Promise<ApiResponse<any>> {
  return call('POST', '/data-sources', {
    body: { type: 'ObjectStore', integrationId: store.id, dataSources },
    ...(key ? { key } : {}),
  });
}

/** Registers one data source that must be created; its id. */
export async function registered(store: Store, dataSourceName: string, prefix: string): Promise<number> {
  const r = await register(store, [{ dataSourceName, prefix }]);
  expect(r.status, r.text).toBe(201);
  expect(r.body.errors).toEqual([]);
  return r.body.dataSources[0].dataSourceId as number;
}

export { uid };
