/**
 * `POST /webhooks/filters/preview`: what a filter would have matched, before it is saved. The
 * expression is compiled as a webhook's would be (a refusal is the same 400) and evaluated
 * against the newest `limit` notifications the caller may see, read from the delivery history
 * with its visibility rules (the caller's personal webhooks' records; an admin's also global
 * ones' — ./history.ts), so a preview never shows another user's notifications.
 *
 * A notification is one delivery digest (the part of `deliveryId` before the webhook id, which
 * every webhook's delivery of it shares); its newest visible record is the one evaluated, with
 * the payload as that record delivered it (`text`, `metadata`, and that webhook's `webhookId`
 * and `webhookName`). Test sends are not notifications and are left out. Reading stops after
 * `MAX_SCANNED` history entries, however many of them are the same notifications.
 */
import type { Principal } from '../../auth/permissions';
import { historyRetentionDays, historyWriteShards } from '../config';
import { compileFilter, evaluateFilter } from '../filter';
import { recordsByKey } from '../store/history';
import {
  type HistoryKey,
  historyKeyOf,
  listingSelection,
  liveWindow,
  requestView,
  type StoredHistoryRecord,
} from '../store/history-keys';
import { mergedListing } from '../store/history-listing';
import type { FilterPreview, FilterPreviewRequest } from './filter-preview-contract';
import { visibleAudiences } from './history';

/** History entries read at most for one preview. */
const MAX_SCANNED = 5000;

/** The notification a delivery belongs to: its `deliveryId` without the webhook id. */
const notificationOf = (deliveryId: string): string => deliveryId.slice(0, deliveryId.lastIndexOf('_'));

const keyText = (key: HistoryKey): string => `${key.deliveryId}#${key.attemptOrId}`;

/** The newest record of each of the newest `limit` notifications the caller may see. */
async function newestNotifications(
  caller: Principal,
  notificationType: FilterPreviewRequest['notificationType'],
  limit: number,
  now: number,
): Promise<StoredHistoryRecord[]> {
  const window = liveWindow(now, historyRetentionDays());
  const selection = listingSelection(
    visibleAudiences(caller),
    notificationType === undefined ? {} : { notificationType },
    historyWriteShards(),
    window.days,
  );
  const loaded = new Map<string, StoredHistoryRecord>();
  /** Notifications that are not previewed: test sends, and records expired meanwhile. */
  const skipped = new Set<string>();
  for (let need = limit; ; need = Math.min(need * 2, MAX_SCANNED)) {
    const entries = await mergedListing(selection.kind, selection.partitions, window.minId, false, need);
    const newest = new Map<string, (typeof entries)[number]>();
    for (const entry of entries) {
      const notification = notificationOf(entry.deliveryId);
      if (!newest.has(notification) && !skipped.has(notification)) newest.set(notification, entry);
    }
    const candidates = [...newest].slice(0, limit);
    const missing = candidates.filter(([notification]) => !loaded.has(notification));
    const records = await recordsByKey(missing.map(([, entry]) => entry));
    const byKey = new Map(records.map((record) => [keyText(historyKeyOf(record)), record]));
    for (const [notification, entry] of missing) {
      const record = byKey.get(keyText(entry));
      if (record === undefined || record.test) skipped.add(notification);
      else loaded.set(notification, record);
    }
    const chosen = candidates.flatMap(([notification]) => loaded.get(notification) ?? []);
    if (chosen.length >= limit || entries.length < need || need >= MAX_SCANNED) return chosen.slice(0, limit);
  }
}

export async function previewFilter(
  caller: Principal,
  request: FilterPreviewRequest,
  now = Date.now(),
): Promise<FilterPreview> {
  const { notificationType, limit } = request;
  const filter = compileFilter(
    request.filter,
    notificationType === undefined ? undefined : [notificationType],
    'body.filter',
  );
  const preview: FilterPreview = {
    evaluated: 0,
    matched: 0,
    notMatched: 0,
    errors: 0,
    matching: [],
    notMatching: [],
    failures: [],
  };
  for (const record of await newestNotifications(caller, notificationType, limit, now)) {
    // The type fan-out would set: the record's own, whatever a producer put in its metadata
    // (records from before fan-out set it so may carry a producer's value).
    const payload = requestView(record.request);
    const decision = evaluateFilter(filter, {
      ...payload,
      metadata: { ...payload.metadata, notificationType: record.notificationType },
    });
    preview.evaluated += 1;
    if (decision.matched) {
      preview.matched += 1;
      preview.matching.push(record.webhooksActivityId);
      continue;
    }
    preview.notMatched += 1;
    preview.notMatching.push(record.webhooksActivityId);
    if (decision.error !== undefined) {
      preview.errors += 1;
      preview.failures.push({
        webhooksActivityId: record.webhooksActivityId,
        notificationType: record.notificationType,
        error: decision.error,
      });
    }
  }
  return preview;
}
