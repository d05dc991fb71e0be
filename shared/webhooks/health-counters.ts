/**
 * A webhook's health counters (ADR 0007), kept off the delivery path by the deliveryHistory
 * stream's consumer in the counts table, and the figures `GET /webhooks` and `GET /webhooks/{id}`
 * show from them. Pure: the keys, what one history record adds, and the figures of a read.
 *
 * - `wh|<webhookId>|<day>`: per hour of the day (UTC), attempts `a<HH>` and 2xx answers `s<HH>`,
 *   added exactly once per record with the day counters (same groups, same markers), and filter
 *   evaluation errors `f<HH>`, added by fan-out (`filterErrorAdds`: a notification has no history
 *   record when its filter fails, so fan-out counts it; a fan-out step done again after a crash
 *   may count its errors twice);
 * - `wh|<webhookId>`: the ids of the newest attempt (`la`) and the newest 2xx (`ls`), raised by
 *   conditional updates (a maximum: a batch delivered again changes nothing), and the failure
 *   streak `fs`: the failed attempts after the newest 2xx in the order the stream delivers them,
 *   added exactly once with the day counters (`streakChange`: a group with a 2xx of the webhook
 *   sets it to the failures after its last one, a group without adds its failures).
 *
 * Every history record counts as an attempt (automatic, manual retry, re-send, test send, and a
 * skipped one as a failure), as on the history page.
 */
import type { WebhookHealth, WebhookLatency } from './model';
import { succeeded } from './outcome-class';
import { createdAtOf, dayOf, ID_SLOTS } from './store/history-keys';

const HOUR_MS = 3_600_000;
/** Hours the rate is taken over: the current one and the 23 before it. */
const RATE_HOURS = 24;

export const webhookLatestKey = (webhookId: number): string => `wh|${webhookId}`;
export const webhookDayKey = (webhookId: number, day: string): string => `wh|${webhookId}|${day}`;

const hourOf = (ms: number): string => new Date(ms).toISOString().slice(11, 13);

/** The hourly counters one history record adds 1 to: its attempt, and its success if it is one. */
export function hourlyAdds(
  webhookId: number,
  recordId: number,
  statusCode: number,
): { key: string; attr: string }[] {
  const ms = Math.floor(recordId / ID_SLOTS);
  const key = webhookDayKey(webhookId, dayOf(ms));
  const hour = hourOf(ms);
  return [{ key, attr: `a${hour}` }, ...(succeeded(statusCode) ? [{ key, attr: `s${hour}` }] : [])];
}

/** The failure streak's attribute on `wh|<webhookId>`. */
export const STREAK_ATTR = 'fs';
/** Consecutive failures are shown up to this many. */
const STREAK_CAP = 1000;

/** A group's change to one webhook's failure streak: set it (the group has a 2xx of it) or add to it. */
export interface StreakChange {
  op: 'set' | 'add';
  n: number;
}

/** The streak after one more attempt of the webhook in stream order (`undefined`: none yet in the group). */
export function streakChange(before: StreakChange | undefined, ok: boolean): StreakChange {
  if (ok) return { op: 'set', n: 0 };
  return { op: before?.op ?? 'add', n: (before?.n ?? 0) + 1 };
}

/** The start of the hours the 24 h figures are taken over (the current one and the 23 before it). */
export const rateWindowStart = (now: number): number =>
  Math.floor(now / HOUR_MS) * HOUR_MS - (RATE_HOURS - 1) * HOUR_MS;

/** Attempts the latency percentiles are taken over at most (the newest of the 24 h). */
export const LATENCY_SAMPLES = 200;

/** The `p`th percentile of ascending `sorted` by nearest rank: the smallest value ≥ p % of them. */
function nearestRank(sorted: readonly number[], p: number): number {
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1] as number;
}

/** p50 and p95 of these attempt durations (any order), or null without any. */
export function latencyFigures(durations: readonly number[]): WebhookLatency | null {
  if (durations.length === 0) return null;
  const sorted = [...durations].sort((a, b) => a - b);
  return {
    p50Ms: Math.round(nearestRank(sorted, 50)),
    p95Ms: Math.round(nearestRank(sorted, 95)),
    samples: sorted.length,
  };
}

/** The hourly counter a filter evaluation error at `ms` adds to. */
export function filterErrorAdd(webhookId: number, ms: number): { key: string; attr: string } {
  return { key: webhookDayKey(webhookId, dayOf(ms)), attr: `f${hourOf(ms)}` };
}

/** The counts-table keys a health read needs for one webhook at `now`. */
export function healthKeys(webhookId: number, now: number): string[] {
  const days = new Set([dayOf(now - (RATE_HOURS - 1) * HOUR_MS), dayOf(now)]);
  return [webhookLatestKey(webhookId), ...[...days].map((day) => webhookDayKey(webhookId, day))];
}

export interface HealthItems {
  /** Counts-table items by key (missing ones absent). */
  get(key: string): Record<string, unknown> | undefined;
}

/**
 * The figures of one webhook from its counters. Consecutive failures are the streak while the
 * newest attempt failed, at least 1 then (the newest ids are raised before the groups are added,
 * so a read in between finds the failure before its count), and 0 once a 2xx is the newest.
 */
export function healthFigures(webhookId: number, items: HealthItems, now: number): WebhookHealth {
  const latest = items.get(webhookLatestKey(webhookId));
  const la = typeof latest?.la === 'number' ? latest.la : undefined;
  const ls = typeof latest?.ls === 'number' ? latest.ls : undefined;
  const streak = typeof latest?.[STREAK_ATTR] === 'number' ? (latest[STREAK_ATTR] as number) : 0;
  const failing = la !== undefined && (ls === undefined || ls < la);
  let attempts = 0;
  let successes = 0;
  let filterErrors = 0;
  for (let h = 0; h < RATE_HOURS; h++) {
    const ms = now - h * HOUR_MS;
    const day = items.get(webhookDayKey(webhookId, dayOf(ms)));
    const hour = hourOf(ms);
    attempts += Number(day?.[`a${hour}`] ?? 0);
    successes += Number(day?.[`s${hour}`] ?? 0);
    filterErrors += Number(day?.[`f${hour}`] ?? 0);
  }
  return {
    ...(la !== undefined ? { lastAttemptAt: createdAtOf(la) } : {}),
    ...(ls !== undefined ? { lastSuccessAt: createdAtOf(ls) } : {}),
    successRate24h: attempts === 0 ? null : Math.round((successes / attempts) * 1e4) / 1e4,
    attempts24h: attempts,
    filterErrors,
    consecutiveFailures: failing ? Math.min(STREAK_CAP, Math.max(1, streak)) : 0,
  };
}
