/**
 * The delivery history's key model (ADR 0006): one record per delivery attempt, listed per
 * caller at O(offset + pageSize) with no hot partition.
 *
 * Key: `(deliveryId, seq)`, in code `HistoryKey {deliveryId, attemptOrId}` (below). An automatic
 * attempt's key is its attempt number (1‥12), so a delivery's attempts are one strongly consistent
 * Query and a second write of one attempt fails. A manual retry's, a re-send's and a twin POST's
 * key is the record's id (always ≥ 1000).
 *
 * Ids: `createdAtMillis × 1000 + slot`, where the slot (0‥999) is leased by the writing container
 * (history-ids.ts), so ids are unique without a shared counter, stay below
 * Number.MAX_SAFE_INTEGER until the year 2255, sort like `createdAt` (which is taken from the id)
 * and match the format of the records written before.
 *
 * Listing: a record belongs to the audience `global` (a global webhook's delivery, admins) or
 * `user#<ownerId>`, and to one of N write shards of it (round-robin per writer). Two KEYS_ONLY
 * GSIs sorted by id list it: `la` = `<audience>|<outcome>|<shard>` and
 * `lt` = `<audience>|<type>|<outcome>|<shard>`, outcome `s` (2xx) or `f`. A page merges the
 * selected partitions (2N per audience for the unfiltered listing, N with an outcome filter)
 * and reads `pageSize` records by key. `lw` = `<webhookId>|<shard>` is stored for a future
 * webhook+time index (ADR 0006 says what it costs); nothing reads it yet.
 *
 * Counts: the stream consumer adds every new record to two per-day counters,
 * `<audience>|<outcome>|<day>` and `<audience>|<type>|<outcome>|<day>`. Records expire at a day
 * boundary (`expiresAt` = the end of their creation day + the retention), so the visible window
 * is "days ≥ today − retention" and `count` is the sum of at most 2 × (retention + 1) counters
 * per audience. Queries apply the same window as a key condition (id ≥ first live id).
 */
import type { DeliveryPayload, HistoryQuery, HistoryRecord } from '../history-model';
import { type OutcomeClass, succeeded } from '../outcome-class';
import { isPacked, type PackedText, unpackText } from './history-text';

/** Why no HTTP answer came back: the stored body of a transport failure. */
export interface TransportFailure {
  code: string;
  connect: boolean;
  message?: string;
}

/**
 * The receiver's answer as stored: its body as text (at most RESPONSE_BODY_CAP_BYTES, cut by the
 * pipeline's transport; `truncated` when cut; `json` when the content type said JSON), or the
 * transport failure.
 */
export type StoredResponse =
  | { body: string; truncated?: true; json?: true }
  | { body: TransportFailure; truncated?: undefined; json?: undefined };

const DAY_MS = 86_400_000;
/** Ids per millisecond: the writer slots. */
export const ID_SLOTS = 1000;
/** A key below this is an automatic attempt's number; manual retries and re-sends use their id. */
export const AUTOMATIC_ATTEMPT_LIMIT = 1000;

export type Outcome = 's' | 'f';
export const OUTCOMES: readonly Outcome[] = ['s', 'f'];

export const HISTORY_INDEXES = {
  audience: { name: 'byAudience', attribute: 'la' },
  type: { name: 'byAudienceType', attribute: 'lt' },
  webhook: { name: 'byWebhook', attribute: 'lw' },
} as const;
export type IndexKind = keyof typeof HISTORY_INDEXES;

export function audienceOf(webhook: { global: boolean; createdBy: number }): string {
  return webhook.global ? 'global' : `user#${webhook.createdBy}`;
}

/** A record's listing outcome: `s` for a success, a 2xx status (../outcome-class.ts). */
export function outcomeOf(statusCode: number): Outcome {
  return succeeded(statusCode) ? 's' : 'f';
}

export function outcomeFilter(value: HistoryQuery['successOrFailure']): Outcome | undefined {
  if (value === undefined) return undefined;
  return value === 'success' ? 's' : 'f';
}

/** The listing partition values of a record (or of a query's shard). */
export function listingKeys(
  audience: string,
  type: string,
  outcome: Outcome,
  shard: number,
): { la: string; lt: string } {
  return { la: `${audience}|${outcome}|${shard}`, lt: `${audience}|${type}|${outcome}|${shard}` };
}

export function webhookListingKey(webhookId: number, shard: number): string {
  return `${webhookId}|${shard}`;
}

/** Every listing partition of one webhook (one per write shard). */
export function webhookPartitions(webhookId: number, shards: number): string[] {
  return Array.from({ length: shards }, (_, shard) => webhookListingKey(webhookId, shard));
}

/** The smallest id of a record created at or after `ms`, and the largest created at or before it. */
export const firstIdAt = (ms: number): number => ms * ID_SLOTS;
export const lastIdAt = (ms: number): number => ms * ID_SLOTS + ID_SLOTS - 1;

/** The two counters a record adds 1 to. */
export function counterKeys(audience: string, type: string, outcome: Outcome, day: string): string[] {
  return [`${audience}|${outcome}|${day}`, `${audience}|${type}|${outcome}|${day}`];
}

export interface ListingSelection {
  kind: IndexKind;
  partitions: string[];
  counters: string[];
}

/**
 * What one query reads: the listing partitions (every shard of every selected outcome and
 * audience) of the index keyed by exactly its filters, and the counters over the live days.
 */
export function listingSelection(
  audiences: readonly string[],
  query: Pick<HistoryQuery, 'notificationType' | 'successOrFailure'>,
  shards: number,
  days: readonly string[],
): ListingSelection {
  const type = query.notificationType;
  const outcomes = [outcomeFilter(query.successOrFailure) ?? OUTCOMES].flat();
  const kind: IndexKind = type ? 'type' : 'audience';
  const partitions: string[] = [];
  const counters: string[] = [];
  for (const audience of audiences) {
    for (const outcome of outcomes) {
      for (let shard = 0; shard < shards; shard++) {
        const keys = listingKeys(audience, type ?? '', outcome, shard);
        partitions.push(kind === 'type' ? keys.lt : keys.la);
      }
      for (const day of days) {
        const [all, typed] = counterKeys(audience, type ?? '', outcome, day);
        counters.push((type ? typed : all) as string);
      }
    }
  }
  return { kind, partitions, counters };
}

export function historyId(nowMs: number, slot: number): number {
  return nowMs * ID_SLOTS + slot;
}

export function createdAtOf(id: number): string {
  return new Date(Math.floor(id / ID_SLOTS)).toISOString();
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
  return { days, minId: first * ID_SLOTS };
}

/**
 * A history record's key: its delivery, and the attempt number of an automatic attempt (below
 * AUTOMATIC_ATTEMPT_LIMIT) or the id of any other record. The code that knows which of the two it
 * holds names it so (`RecordedAttempt.attempt`, `newHistoryItem`); a key read from the table does not.
 */
export interface HistoryKey {
  deliveryId: string;
  attemptOrId: number;
}

/**
 * The key as the table stores it: the sort key is named `seq` (shared/catalog/tables.ts; renaming a
 * stored attribute would mean moving every record). `storedKey` and `historyKeyOf` are the
 * boundary: the store's code names the attribute only through them and in its key conditions.
 */
// A type, not an interface: a DynamoDB key is a plain record (an index signature).
export type StoredKey = { deliveryId: string; seq: number };

export const storedKey = ({ deliveryId, attemptOrId }: HistoryKey): StoredKey => ({
  deliveryId,
  seq: attemptOrId,
});

export const historyKeyOf = ({ deliveryId, seq }: StoredKey): HistoryKey => ({
  deliveryId,
  attemptOrId: seq,
});

/**
 * A record as stored. `request` is the JSON text of the payload that was POSTed and `response`
 * keeps the receiver's body as text, so any payload and any answer store (no document depth,
 * number or key rule of DynamoDB applies to a string); either text is stored compressed when it
 * is long (history-text.ts). Records of the legacy layout hold both as documents; the view
 * reads every form.
 */
export interface StoredHistoryRecord
  extends StoredKey,
    Omit<HistoryRecord, 'request' | 'response' | 'updatedAt'> {
  request: PackedText | DeliveryPayload;
  response: StoredResponse | { body: Uint8Array; truncated?: true; json?: true } | Record<string, unknown>;
  /** How long the POST took (ms). */
  durationMs?: number;
  /** The attempt's class when its status does not tell it (../outcome-class.ts); absent otherwise. */
  outcomeClass?: OutcomeClass;
  audience: string;
  retryOf?: number;
  expiresAt: number;
  la: string;
  lt: string;
  lw: string;
  /** A second POST of an attempt recorded already (keyed by its id). */
  twin?: true;
  /** The recover job whose re-send this record is (how a re-send taken over after a crash finds it). */
  recoverJob?: string;
}

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
  const { body: kept, truncated, json } = stored as { body?: unknown; truncated?: boolean; json?: boolean };
  const body = isPacked(kept) ? unpackText(kept) : kept;
  if (typeof body !== 'string') return truncated ? { body, truncated } : { body };
  const parsed = json && body.length > 0 ? plainJson(body) : undefined;
  return { body: parsed === undefined ? body : parsed, ...(truncated ? { truncated: true } : {}) };
}

/** The payload that was POSTed (stored as its JSON text, maybe compressed; as a document by legacy records). */
export function requestView(stored: StoredHistoryRecord['request']): DeliveryPayload {
  if (isPacked(stored)) return JSON.parse(unpackText(stored)) as DeliveryPayload;
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
    // Records are immutable.
    updatedAt: item.createdAt,
    webhooksId: item.webhooksId,
    url: item.url,
    name: item.name,
    actionType: item.actionType ?? null,
    createdBy: item.createdBy,
    deliveryId: item.deliveryId,
    attempt: item.attempt,
    ...(item.durationMs !== undefined && !item.skipped ? { durationMs: item.durationMs } : {}),
    ...(item.retryOf !== undefined ? { retryOf: item.retryOf } : {}),
    ...(item.test ? { test: true } : {}),
    ...(item.skipped ? { skipped: true } : {}),
    ...(item.keySkipped ? { keySkipped: true } : {}),
    ...(item.possiblyDeliveredBefore ? { possiblyDeliveredBefore: true } : {}),
  };
}
