/**
 * One HTTP attempt of a webhook delivery, with undici: POST the JSON body, never follow a
 * redirect (a 3xx is a failed attempt), give up after the stage's timeout, read at most
 * RESPONSE_BODY_CAP_BYTES of the answer (the rest is never read into memory), and turn every
 * transport failure into the history form `statusCode 500, response.body {code, connect}`.
 *
 * The answer's body is kept as text, never as the parsed document: whatever a receiver sends
 * (integers past 2^53, empty or `__proto__` keys, nesting deeper than DynamoDB's 32 levels) is a
 * bounded string that always stores. The history view parses it back when it is plain JSON
 * (`responseView` in store/history-keys.ts).
 */
import type { Dispatcher } from 'undici';
import { Agent, request } from '../../net/undici-core';
import { allowPrivateTargets, connectTimeoutMs, RESPONSE_BODY_CAP_BYTES, webhookTimeoutMs } from '../config';
import { classOfStatus, type OutcomeClass } from '../outcome-class';
import type { StoredResponse, TransportFailure } from '../store/history-keys';
import { webhookConnector } from './ssrf';

export interface AttemptOutcome {
  /** The receiver's status, or 500 when no HTTP answer came back (timeout, refused, blocked). */
  statusCode: number;
  response: StoredResponse;
  /** What the result means for the delivery and the webhook (../outcome-class.ts). */
  outcomeClass: OutcomeClass;
  /** 2xx: `outcomeClass` is `delivered`. */
  delivered: boolean;
  /** Seconds from a Retry-After header on a 429 or 503. */
  retryAfterSeconds?: number;
  durationMs: number;
  /** The transport error code when no HTTP answer came back (`ETARGETBLOCKED`, `ECONNREFUSED`, …). */
  failureCode?: string;
}

export interface AttemptOptions {
  timeoutMs?: number;
  bodyCapBytes?: number;
  dispatcher?: Dispatcher;
}

const agents = new Map<string, Dispatcher>();

/** One keep-alive agent per container and setting, built on first use. */
function deliveryAgent(): Dispatcher {
  const allowPrivate = allowPrivateTargets();
  const connectMs = connectTimeoutMs();
  const timeoutMs = webhookTimeoutMs();
  const key = `${allowPrivate}:${connectMs}:${timeoutMs}`;
  let agent = agents.get(key);
  if (!agent) {
    agent = new Agent({
      connect: webhookConnector({ allowPrivate, connectTimeoutMs: connectMs }),
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      keepAliveTimeout: 4_000,
    });
    agents.set(key, agent);
  }
  return agent;
}

/** Error codes raised before a connection exists (the history's `connect: true`). */
const CONNECT_PHASE = new Set([
  'ETARGETBLOCKED',
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
  'ETIMEDOUT',
  'UND_ERR_CONNECT_TIMEOUT',
  'CERT_HAS_EXPIRED',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

class AttemptTimeoutError extends Error {
  override name = 'AttemptTimeoutError';
}

function errorCode(error: unknown): string {
  let current: unknown = error;
  for (let depth = 0; current && depth < 5; depth++) {
    if (current instanceof AttemptTimeoutError) return 'ESOCKETTIMEDOUT';
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') {
      if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') return 'ESOCKETTIMEDOUT';
      if (code === 'UND_ERR_CONNECT_TIMEOUT') return 'ETIMEDOUT';
      if (code !== 'UND_ERR_ABORTED' && code !== 'ABORT_ERR') return code;
    }
    if (current instanceof AggregateError && current.errors.length > 0) {
      current = current.errors[0];
      continue;
    }
    current = (current as { cause?: unknown }).cause;
  }
  return 'EREQUESTFAILED';
}

/** The history form of a transport failure. */
function failureOutcome(error: unknown, startedAt: number): AttemptOutcome {
  const code = errorCode(error);
  const body: TransportFailure = { code, connect: CONNECT_PHASE.has(code) };
  if (code === 'ETARGETBLOCKED') body.message = (error as Error).message;
  return {
    statusCode: 500,
    response: { body },
    outcomeClass: 'failed',
    delivered: false,
    durationMs: Date.now() - startedAt,
    failureCode: code,
  };
}

export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | undefined {
  const raw = Array.isArray(value) ? value[0] : value;
  if (!raw) return undefined;
  const trimmed = raw.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, Math.ceil((date - now) / 1000));
}

async function readCapped(
  body: AsyncIterable<Buffer>,
  cap: number,
): Promise<{ bytes: Buffer; truncated: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const remaining = cap - size;
    if (chunk.length > remaining) {
      chunks.push(chunk.subarray(0, remaining));
      // Leaving the loop destroys the stream: the rest of the body is never read.
      return { bytes: Buffer.concat(chunks), truncated: true };
    }
    chunks.push(chunk);
    size += chunk.length;
  }
  return { bytes: Buffer.concat(chunks), truncated: false };
}

function storedResponse(bytes: Buffer, truncated: boolean, contentType: string | undefined): StoredResponse {
  const response: StoredResponse = { body: bytes.toString('utf8') };
  if (truncated) response.truncated = true;
  else if (/json/i.test(contentType ?? '')) response.json = true;
  return response;
}

export async function postWebhook(
  url: string,
  body: string,
  headers: Record<string, string>,
  options: AttemptOptions = {},
): Promise<AttemptOutcome> {
  const startedAt = Date.now();
  const timeoutMs = options.timeoutMs ?? webhookTimeoutMs();
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new AttemptTimeoutError('timed out')), timeoutMs);
  try {
    const res = await request(url, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json', 'user-agent': 'Causeway-Webhooks/1.0', ...headers },
      dispatcher: options.dispatcher ?? deliveryAgent(),
      signal: controller.signal,
    });
    const { bytes, truncated } = await readCapped(res.body, options.bodyCapBytes ?? RESPONSE_BODY_CAP_BYTES);
    const contentType = res.headers['content-type'];
    const outcomeClass = classOfStatus(res.statusCode);
    const outcome: AttemptOutcome = {
      statusCode: res.statusCode,
      response: storedResponse(bytes, truncated, Array.isArray(contentType) ? contentType[0] : contentType),
      outcomeClass,
      delivered: outcomeClass === 'delivered',
      durationMs: Date.now() - startedAt,
    };
    if (res.statusCode === 429 || res.statusCode === 503) {
      const retryAfter = parseRetryAfter(res.headers['retry-after']);
      if (retryAfter !== undefined) outcome.retryAfterSeconds = retryAfter;
    }
    return outcome;
  } catch (error) {
    return failureOutcome(controller.signal.aborted ? controller.signal.reason : error, startedAt);
  } finally {
    clearTimeout(timer);
  }
}
