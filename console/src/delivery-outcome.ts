/**
 * A delivery attempt's outcome in words. Failures without an HTTP answer are recorded as status
 * 500 with `response.body = {code, connect[, message]}` (docs/webhooks.md, Delivery), and a
 * skipped attempt as status 0 (`EWEBHOOKDISABLED`): the code says what happened, the 500 does not.
 */

const REASONS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset by the receiver',
  ESOCKETTIMEDOUT: 'no answer in time',
  ETIMEDOUT: 'connecting timed out',
  ENOTFOUND: 'host name not found',
  EAI_AGAIN: 'host name lookup failed (temporary)',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ETARGETBLOCKED: 'the target is not a public address',
  EWEBHOOKDISABLED: 'skipped: the webhook was disabled',
  EREQUESTFAILED: 'the request failed',
};

export interface AttemptLike {
  statusCode: number;
  response: Record<string, unknown>;
  skipped?: true;
}

/** `{code, message}` of an attempt that got no HTTP answer, else undefined. */
function transportFailure(record: AttemptLike): { code: string; message?: string } | undefined {
  const body = record.response.body;
  if (!body || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const { code, connect, message } = body as { code?: unknown; connect?: unknown; message?: unknown };
  if (typeof code !== 'string' || typeof connect !== 'boolean') return undefined;
  return { code, ...(typeof message === 'string' ? { message } : {}) };
}

export const succeeded = (record: Pick<AttemptLike, 'statusCode'>): boolean =>
  record.statusCode >= 200 && record.statusCode < 300;

/** What the table shows: the HTTP status, or the failure reason when no answer came. */
export function outcomeLabel(record: AttemptLike): string {
  const failure = transportFailure(record);
  if (!failure) return String(record.statusCode);
  const words =
    REASONS[failure.code] ??
    (failure.code.startsWith('ERR_TLS') || failure.code.includes('CERT')
      ? 'TLS certificate not accepted'
      : undefined);
  return words ? `${words} (${failure.code})` : failure.code;
}
