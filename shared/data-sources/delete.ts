/**
 * DELETE /data-sources/{id} (ADR 0016): removes a data source from the service (nothing remote is
 * touched), whatever its integration's status, and answers it; the stream publishes modelDeleted.
 */
import { NotFoundError } from '../errors';
import type { DataSourceView } from './model';
import { type Caller, getDataSource, listDataSources, removeDataSource } from './store';
import { viewOf } from './view';

export async function deleteDataSource(caller: Caller, id: number): Promise<DataSourceView> {
  const item = await getDataSource(id);
  // Removed by a concurrent request after the read: it is gone all the same, but not by this one.
  if (!item || !(await removeDataSource(item, caller)))
    throw new NotFoundError(`data source ${id} not found`);
  return viewOf(item);
}

/** Removes every data source of an integration (a force-disable); answers how many this call removed. */
export async function removeAllOf(integrationId: number, caller: Caller): Promise<number> {
  let removed = 0;
  for (const item of await listDataSources({ integrationId })) {
    if (await removeDataSource(item, caller)) removed++;
  }
  return removed;
}
