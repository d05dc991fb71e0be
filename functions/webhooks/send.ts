/**
 * The webhook sender (internal function): re-sends a history record's request on behalf of
 * `POST /webhooks/history/retry/{id}`, which has already found the record among the caller's.
 */
import type { Context } from 'aws-lambda';
import * as z from 'zod';
import { NotFoundError } from '../../shared/errors';
import type { ResendResult } from '../../shared/webhooks/api/retry';
import { resendHistoryRecord } from '../../shared/webhooks/pipeline/delivery';

const ResendRequestSchema = z.strictObject({
  deliveryId: z.string().min(1).max(200),
  seq: z.number().int().positive(),
});

export async function handler(event: unknown, context?: Context): Promise<ResendResult> {
  const key = ResendRequestSchema.parse(event);
  try {
    return { ok: true, record: await resendHistoryRecord(key, context) };
  } catch (error) {
    if (error instanceof NotFoundError) return { ok: false, notFound: error.message };
    throw error;
  }
}
