/**
 * `GET /webhooks/history`: who sees which records, and one page of them. A caller sees the
 * records of their personal webhooks; admins also those of global webhooks (and the key model
 * in store/history-keys.ts keeps the two audiences in separate partitions).
 *
 * `count` comes from counters a stream consumer keeps off the delivery path: it agrees with the
 * records once the consumer has caught up (seconds; docs/webhooks.md, Counts). With `since` or
 * `until` the counters give the whole days and COUNT queries the partial days at the edges; with
 * `webhookId` the webhook's own index (ADR 0007) serves the page and a COUNT of its window; with
 * `deliveryId` the delivery's own records (one partition of the table: its attempts, retries and
 * re-sends) are read whole and filtered here.
 */
import type { Principal } from '../../auth/permissions';
import { isAdmin } from '../../auth/permissions';
import { historyRetentionDays, historyWriteShards } from '../config';
import type { HistoryPage, HistoryQuery } from '../history-model';
import { sumCounters } from '../store/delivery-counts';
import { deliveryItems, recordsByKey, webhookEntryAudiences } from '../store/history';
import {
  dayOf,
  firstIdAt,
  historyView,
  ID_SLOTS,
  lastIdAt,
  listingSelection,
  liveWindow,
  outcomeFilter,
  outcomeOf,
  webhookPartitions,
} from '../store/history-keys';
import { countRange, type ListingRange, mergedListing } from '../store/history-listing';
import { getWebhookItem } from '../store/webhooks';

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

const DAY_MS = 86_400_000;

/**
 * Whether webhook `webhookId` can have records among `audiences`, decided before its index is
 * read, with the same reads for every id — another user's busy webhook, an idle one, a deleted
 * one, an id never used — so neither the answer nor its time tells them apart (issue 34, item 15:
 * filtering the busy webhook's index by audience took as long as the index is big). A caller who
 * selects global records is an admin, who sees every webhook anyway. Otherwise the only audience
 * is the caller's own: the webhook's owner decides; for a webhook that no longer exists, the
 * audience of its first index entries.
 */
async function mayHoldVisibleRecords(audiences: readonly string[], webhookId: number): Promise<boolean> {
  if (audiences.includes('global')) return true;
  const [webhook, entryAudiences] = await Promise.all([
    getWebhookItem(webhookId),
    webhookEntryAudiences(webhookId, historyWriteShards()),
  ]);
  if (webhook) return audiences.includes(`user#${webhook.createdBy}`);
  return [...entryAudiences].some((audience) => audiences.includes(audience));
}

/**
 * `count` of a time window on the audience partitions: the day counters of the whole days inside
 * it, plus COUNT queries over the partial days at its edges (at most two days' index entries).
 */
async function windowCount(
  selection: ReturnType<typeof listingSelection>,
  audiences: readonly string[],
  query: HistoryQuery,
  from: number,
  to: number,
): Promise<number> {
  const firstWhole = Math.ceil(from / DAY_MS) * DAY_MS;
  const endWhole = Math.floor((to + 1) / DAY_MS) * DAY_MS;
  const wholeDays: string[] = [];
  for (let d = firstWhole; d + DAY_MS <= endWhole; d += DAY_MS) wholeDays.push(dayOf(d));
  const edges: [number, number][] =
    wholeDays.length === 0
      ? [[from, to]]
      : [
          [from, firstWhole - 1],
          [endWhole, to],
        ];
  const whole = listingSelection(audiences, query, historyWriteShards(), wholeDays);
  const parts = await Promise.all([
    sumCounters(whole.counters),
    ...edges
      .filter(([a, b]) => b >= a)
      .map(([a, b]) =>
        countRange(selection.kind, selection.partitions, { minId: firstIdAt(a), maxId: lastIdAt(b) }),
      ),
  ]);
  return parts.reduce((x, y) => x + y, 0);
}

export async function queryHistory(
  caller: Principal,
  query: HistoryQuery,
  nowMs = Date.now(),
): Promise<HistoryPage> {
  const audiences = selectedAudiences(caller, query);
  // Nothing is recorded after now: a window that starts later is empty, and one that ends later
  // ends now (so the days it spans, and the ids it names, stay those of the retention window).
  if (audiences.length === 0 || (query.since !== undefined && query.since > nowMs)) {
    return { count: 0, records: [] };
  }
  const until = query.until === undefined ? undefined : Math.min(query.until, nowMs);
  const window = liveWindow(nowMs, historyRetentionDays());
  const need = query.offset + query.pageSize;
  const ascending = query.sortOrder === 'asc';
  const from = Math.max(firstIdAt(query.since ?? 0), window.minId);
  const windowed = query.since !== undefined || until !== undefined;
  const range: ListingRange = {
    minId: from,
    ...(until !== undefined ? { maxId: lastIdAt(until) } : {}),
  };
  if (query.deliveryId !== undefined) {
    const maxId = range.maxId ?? Number.MAX_SAFE_INTEGER;
    const matching = (await deliveryItems(query.deliveryId))
      .filter(
        (r) =>
          audiences.includes(r.audience) &&
          r.id >= range.minId &&
          r.id <= maxId &&
          (query.webhookId === undefined || r.webhooksId === query.webhookId) &&
          (query.notificationType === undefined || r.notificationType === query.notificationType) &&
          (query.successOrFailure === undefined ||
            outcomeOf(r.statusCode) === outcomeFilter(query.successOrFailure)),
      )
      .sort((a, b) => (ascending ? a.id - b.id : b.id - a.id));
    return { count: matching.length, records: matching.slice(query.offset, need).map(historyView) };
  }
  if (query.webhookId !== undefined) {
    if (!(await mayHoldVisibleRecords(audiences, query.webhookId))) return { count: 0, records: [] };
    // One webhook's index: visibility, type and outcome are conditions on its projected fields.
    const partitions = webhookPartitions(query.webhookId, historyWriteShards());
    const filtered: ListingRange = {
      ...range,
      audiences,
      ...(query.notificationType !== undefined ? { notificationType: query.notificationType } : {}),
      ...(query.successOrFailure !== undefined ? { outcome: outcomeFilter(query.successOrFailure) } : {}),
    };
    const [count, entries] = await Promise.all([
      countRange('webhook', partitions, filtered),
      mergedListing('webhook', partitions, filtered, ascending, need),
    ]);
    const records = await recordsByKey(entries.slice(query.offset, need));
    return { count, records: records.map(historyView) };
  }
  const selection = listingSelection(audiences, query, historyWriteShards(), window.days);
  const [count, entries] = await Promise.all([
    windowed
      ? windowCount(selection, audiences, query, Math.floor(from / ID_SLOTS), until ?? nowMs)
      : sumCounters(selection.counters),
    mergedListing(selection.kind, selection.partitions, range, ascending, need),
  ]);
  const records = await recordsByKey(entries.slice(query.offset, need));
  return { count, records: records.map(historyView) };
}
