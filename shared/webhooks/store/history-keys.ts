/**
 * The webhook history's key model: one record per delivery attempt, listed per caller at O(offset + pageSize).
 *
 * Ids: `createdAtMillis × 1000 + random(0‥999)`, written with a conditional put (a collision
 * draws again). They need no shared counter (no hot item), stay below
 * Number.MAX_SAFE_INTEGER until the year 2255, and sort like `createdAt` (ties broken by id).
 * Records are immutable, so `createdAt`, `updatedAt` and `id` order alike.
 *
 * Audiences: a record belongs to `global` (a global webhook's delivery, visible to admins) or
 * `user#<ownerId>` (a personal webhook's, visible to its owner). Each record carries one
 * partition value per filter combination — audience, audience+type, audience+outcome,
 * audience+type+outcome — each the key of a KEYS_ONLY GSI sorted by id. A page therefore reads
 * `offset + pageSize` index keys from one partition per selected audience (two at most, merged)
 * and then `pageSize` records by key.
 *
 * Counts: every record write adds 1 to a per-day counter of each of its four partitions, in the
 * same transaction as the record. Records expire at a day boundary (`expiresAt` = the end of
 * their creation day + the retention), so the visible window is "days ≥ today − retention" and
 * `count` is the sum of at most retention+1 day counters per partition — independent of the
 * number of records. Queries apply the same window as a key condition (id ≥ first live id),
 * so records TTL has not yet removed are never listed.
 */
import type { DeliveryPayload, HistoryQuery, HistoryRecord } from '../model';
import type { StoredResponse } from '../pipeline/transport';

const DAY_MS = 86_400_000;
const ID_SPREAD = 1000;

export type Outcome = 'success' | 'failure';

export const HISTORY_INDEXES = {
  all: { name: 'byAudience', attribute: 'aud' },
  type: { name: 'byAudienceType', attribute: 'audType' },
  outcome: { name: 'byAudienceOutcome', attribute: 'audOutcome' },
  typeOutcome: { name: 'byAudienceTypeOutcome', attribute: 'audTypeOutcome' },
} as const;
export type IndexKind = keyof typeof HISTORY_INDEXES;

export function audienceOf(webhook: { global: boolean; createdBy: number }): string {
  return webhook.global ? 'global' : `user#${webhook.createdBy}`;
}

export function outcomeOf(statusCode: number): Outcome {
  return statusCode >= 200 && statusCode < 300 ? 'success' : 'failure';
}

export function partitionValue(kind: IndexKind, audience: string, type?: string, outcome?: Outcome): string {
  switch (kind) {
    case 'all':
      return `a|${audience}`;
    case 'type':
      return `t|${audience}|${type}`;
    case 'outcome':
      return `o|${audience}|${outcome}`;
    case 'typeOutcome':
      return `to|${audience}|${type}|${outcome}`;
  }
}

/** The four partition values a record is listed under. */
export function recordPartitions(
  audience: string,
  type: string,
  outcome: Outcome,
): Record<IndexKind, string> {
  return {
    all: partitionValue('all', audience),
    type: partitionValue('type', audience, type),
    outcome: partitionValue('outcome', audience, undefined, outcome),
    typeOutcome: partitionValue('typeOutcome', audience, type, outcome),
  };
}

export function newHistoryId(nowMs: number, random: () => number = Math.random): number {
  return nowMs * ID_SPREAD + Math.floor(random() * ID_SPREAD);
}

export function dayOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

function startOfDay(ms: number): number {
  return Math.floor(ms / DAY_MS) * DAY_MS;
}

/** Epoch seconds at which a record created at `ms` expires. */
export function expiresAtFor(ms: number, retentionDays: number): number {
  return (startOfDay(ms) + (retentionDays + 1) * DAY_MS) / 1000;
}

/** The live days (newest last) and the smallest live id. */
export function liveWindow(nowMs: number, retentionDays: number): { days: string[]; minId: number } {
  const first = startOfDay(nowMs) - retentionDays * DAY_MS;
  const days: string[] = [];
  for (let d = first; d <= nowMs; d += DAY_MS) days.push(dayOf(d));
  return { days, minId: first * ID_SPREAD };
}

/**
 * A record as stored. `request` is the JSON text of the payload that was POSTed and `response`
 * keeps the receiver's body as text, so any payload and any answer store (no document depth,
 * number or key rule of DynamoDB applies to a string). Records written before that change hold
 * both as documents; the view reads either.
 */
export interface StoredHistoryRecord extends Omit<HistoryRecord, 'request' | 'response'> {
  request: string | DeliveryPayload;
  response: StoredResponse | Record<string, unknown>;
  audience: string;
  retryOf?: number;
  expiresAt: number;
  aud: string;
  audType: string;
  audOutcome: string;
  audTypeOutcome: string;
}

export type NewHistoryRecord = Omit<HistoryRecord, 'id' | 'createdAt' | 'updatedAt' | 'response'> & {
  response: StoredResponse;
  global: boolean;
  retryOf?: number;
};

/** DynamoDB's limit on nested documents; deeper answers are shown as text. */
const MAX_VIEW_DEPTH = 32;

function depthOf(value: unknown): number {
  if (value === null || typeof value !== 'object') return 0;
  let deepest = 0;
  for (const child of Object.values(value)) deepest = Math.max(deepest, depthOf(child));
  return deepest + 1;
}

/**
 * `text` parsed when it is plain JSON: no integer literal outside the safe range (parsing would
 * change it) and at most MAX_VIEW_DEPTH levels; otherwise undefined and the text is shown as it
 * came.
 */
export function plainJson(text: string): unknown {
  let unsafe = false;
  let value: unknown;
  try {
    // The reviver's third argument carries each number's source text (Node 22+).
    value = JSON.parse(text, (_key, v: unknown, context?: { source?: string }) => {
      if (typeof v === 'number' && !Number.isSafeInteger(v) && /^-?\d+$/.test(context?.source ?? String(v)))
        unsafe = true;
      return v;
    });
  } catch {
    return undefined;
  }
  if (unsafe || depthOf(value) > MAX_VIEW_DEPTH) return undefined;
  return value;
}

/** The API's `response`: a JSON answer's body parsed when it is plain JSON, else the text. */
export function responseView(stored: StoredHistoryRecord['response']): Record<string, unknown> {
  const { body, truncated, json } = stored as { body?: unknown; truncated?: boolean; json?: boolean };
  if (typeof body !== 'string') return truncated ? { body, truncated } : { body };
  const parsed = json && body.length > 0 ? plainJson(body) : undefined;
  return { body: parsed === undefined ? body : parsed, ...(truncated ? { truncated: true } : {}) };
}

/** The payload that was POSTed (stored as its JSON text; as a document by older records). */
export function requestView(stored: StoredHistoryRecord['request']): DeliveryPayload {
  return typeof stored === 'string' ? (JSON.parse(stored) as DeliveryPayload) : stored;
}

export function historyView(item: StoredHistoryRecord): HistoryRecord & { retryOf?: number } {
  return {
    id: item.id,
    request: requestView(item.request),
    response: responseView(item.response),
    statusCode: item.statusCode,
    notificationType: item.notificationType,
    webhooksActivityId: item.webhooksActivityId,
    createdAt: item.createdAt,
    updatedAt: item.updatedAt,
    webhooksId: item.webhooksId,
    url: item.url,
    name: item.name,
    actionType: item.actionType ?? null,
    createdBy: item.createdBy,
    deliveryId: item.deliveryId,
    attempt: item.attempt,
    ...(item.retryOf !== undefined ? { retryOf: item.retryOf } : {}),
  };
}

/** The index a history query reads: the one keyed by exactly the filters it sets. */
export function indexKind(query: Pick<HistoryQuery, 'notificationType' | 'successOrFailure'>): IndexKind {
  if (query.notificationType && query.successOrFailure) return 'typeOutcome';
  if (query.notificationType) return 'type';
  if (query.successOrFailure) return 'outcome';
  return 'all';
}
