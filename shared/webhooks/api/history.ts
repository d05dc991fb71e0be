/**
 * `GET /webhooks/history`: who sees which records, and one page of them. A caller sees the
 * records of their personal webhooks; admins also those of global webhooks (and the key model
 * in store/history-keys.ts keeps the two audiences in separate partitions).
 */
import type { Principal } from '../../auth/permissions';
import { isAdmin } from '../../auth/permissions';
import { historyRetentionDays } from '../config';
import type { HistoryPage, HistoryQuery } from '../model';
import { countPartitions, partitionIds, recordsById } from '../store/history';
import {
  historyView,
  indexKind,
  liveWindow,
  partitionValue,
  type StoredHistoryRecord,
} from '../store/history-keys';

/** Whether the caller may see a record: their personal webhooks' records; global ones for admins. */
export function canSeeRecord(caller: Principal, record: Pick<StoredHistoryRecord, 'audience'>): boolean {
  if (record.audience === `user#${caller.userId}`) return true;
  return record.audience === 'global' && isAdmin(caller);
}

/** The audiences a history query selects for the caller. */
export function selectedAudiences(
  caller: Principal,
  query: Pick<HistoryQuery, 'includeUser' | 'includeGlobal'>,
): string[] {
  const audiences: string[] = [];
  if (query.includeUser) audiences.push(`user#${caller.userId}`);
  // Global webhooks are admin-only, and so is their history.
  if (query.includeGlobal && isAdmin(caller)) audiences.push('global');
  return audiences;
}

export async function queryHistory(
  caller: Principal,
  query: HistoryQuery,
  nowMs = Date.now(),
): Promise<HistoryPage> {
  const audiences = selectedAudiences(caller, query);
  if (audiences.length === 0) return { count: 0, records: [] };
  const kind = indexKind(query);
  const partitions = audiences.map((a) =>
    partitionValue(kind, a, query.notificationType, query.successOrFailure),
  );
  const window = liveWindow(nowMs, historyRetentionDays());
  const ascending = query.sortOrder === 'asc';
  const need = query.offset + query.pageSize;
  const [count, lists] = await Promise.all([
    countPartitions(partitions, window.days),
    Promise.all(partitions.map((p) => partitionIds(kind, p, window.minId, ascending, need))),
  ]);
  const merged = lists.flat().sort((a, b) => (ascending ? a - b : b - a));
  const page = merged.slice(query.offset, need);
  const records = await recordsById(page);
  return { count, records: records.map(historyView) };
}
