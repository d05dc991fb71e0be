/**
 * `GET /webhooks/history`: who sees which records, and one page of them. A caller sees the
 * records of their personal webhooks; admins also those of global webhooks (and the key model
 * in store/history-keys.ts keeps the two audiences in separate partitions).
 *
 * `count` comes from counters a stream consumer keeps off the delivery path: it agrees with the
 * records once the consumer has caught up (seconds; docs/webhooks.md, Counts).
 */
import type { Principal } from '../../auth/permissions';
import { isAdmin } from '../../auth/permissions';
import { historyRetentionDays, historyWriteShards } from '../config';
import type { HistoryPage, HistoryQuery } from '../model';
import { mergedListing, recordsByKey, sumCounters } from '../store/history';
import { historyView, listingSelection, liveWindow, type StoredHistoryRecord } from '../store/history-keys';

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

/** Every audience whose records the caller may see (the retry route looks a record up in these). */
export function visibleAudiences(caller: Principal): string[] {
  return selectedAudiences(caller, { includeUser: true, includeGlobal: true });
}

export async function queryHistory(
  caller: Principal,
  query: HistoryQuery,
  nowMs = Date.now(),
): Promise<HistoryPage> {
  const audiences = selectedAudiences(caller, query);
  if (audiences.length === 0) return { count: 0, records: [] };
  const window = liveWindow(nowMs, historyRetentionDays());
  const selection = listingSelection(audiences, query, historyWriteShards(), window.days);
  const need = query.offset + query.pageSize;
  const [count, entries] = await Promise.all([
    sumCounters(selection.counters),
    mergedListing(selection.kind, selection.partitions, window.minId, query.sortOrder === 'asc', need),
  ]);
  const records = await recordsByKey(entries.slice(query.offset, need));
  return { count, records: records.map(historyView) };
}
