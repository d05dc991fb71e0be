/**
 * The webhook sender (internal function): re-sends a history record's request on behalf of
 * `POST /webhooks/history/retry/{id}`, which has already authorized the caller.
 */
import type { Context } from 'aws-lambda';
import * as z from 'zod';
import { NotFoundError } from '../../shared/errors';
import type { ResendResult } from '../../shared/webhooks/api/retry';
import { resendHistoryRecord } from '../../shared/webhooks/pipeline/delivery';

const ResendRequestSchema = z.strictObject({ historyId: z.number().int().positive() });

export async function handler(event: unknown, context?: Context): Promise<ResendResult> {
  const { historyId } = ResendRequestSchema.parse(event);
  try {
    return { ok: true, record: await resendHistoryRecord(historyId, context) };
  } catch (error) {
    if (error instanceof NotFoundError) return { ok: false, notFound: error.message };
    throw error;
  }
}
