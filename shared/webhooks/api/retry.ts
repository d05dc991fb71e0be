/**
 * `POST /webhooks/history/retry/{id}`: the API side checks that the caller may see the record
 * (404 otherwise, never 403), then asks the webhook sender function to re-send it. The sender
 * holds the HTTP client, the SSRF guard and the permission to decrypt webhook secrets, so the
 * API function needs neither.
 */
import type { Principal } from '../../auth/permissions';
import { NotFoundError } from '../../errors';
import { invokeInternal } from '../../store/internal-functions';
import type { HistoryRecord } from '../model';
import { getHistoryRecord } from '../store/history';
import { canSeeRecord } from './history';

export interface ResendRequest {
  historyId: number;
}

export type ResendResult = { ok: true; record: HistoryRecord } | { ok: false; notFound: string };

export async function requestRetry(caller: Principal, id: number): Promise<HistoryRecord> {
  const original = await getHistoryRecord(id);
  if (!original || !canSeeRecord(caller, original)) throw new NotFoundError(`history record ${id} not found`);
  const result = await invokeInternal<ResendResult>('webhookSender', {
    historyId: id,
  } satisfies ResendRequest);
  if (!result.ok) throw new NotFoundError(result.notFound);
  return result.record;
}
