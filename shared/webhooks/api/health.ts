/**
 * The health figures `GET /webhooks/{id}` shows, read at request time from the webhook's history
 * index (byWebhook projects each attempt's status): the newest 1,000 attempts within the
 * retention, merged over the write shards — a bounded read, whatever the history holds, and no
 * write on the delivery path. The streak start (`failingSince`) is on the webhook item itself.
 */
import { historyRetentionDays, historyWriteShards } from '../config';
import type { WebhookHealth } from '../model';
import { mergedListing } from '../store/history';
import { createdAtOf, liveWindow, webhookPartitions } from '../store/history-keys';

const SAMPLE = 1000;
const DAY_MS = 86_400_000;

export async function webhookHealth(webhookId: number, now = Date.now()): Promise<WebhookHealth> {
  const window = liveWindow(now, historyRetentionDays());
  const entries = await mergedListing(
    'webhook',
    webhookPartitions(webhookId, historyWriteShards()),
    window.minId,
    false,
    SAMPLE,
  );
  const ok = (code: number | undefined) => code !== undefined && code >= 200 && code < 300;
  const firstSuccess = entries.findIndex((e) => ok(e.statusCode));
  const dayAgo = (now - DAY_MS) * 1000;
  const recent = entries.filter((e) => e.id >= dayAgo);
  const newest = entries[0];
  const success = firstSuccess >= 0 ? entries[firstSuccess] : undefined;
  return {
    ...(newest ? { lastAttemptAt: createdAtOf(newest.id) } : {}),
    ...(success ? { lastSuccessAt: createdAtOf(success.id) } : {}),
    consecutiveFailures: firstSuccess >= 0 ? firstSuccess : entries.length,
    successRate24h:
      recent.length === 0
        ? null
        : Math.round((recent.filter((e) => ok(e.statusCode)).length / recent.length) * 1e4) / 1e4,
    attempts24h: recent.length,
  };
}
