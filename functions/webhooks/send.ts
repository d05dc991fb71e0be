/**
 * The webhook sender (internal function): re-sends a history record's request on behalf of
 * `POST /webhooks/history/retry/{id}` (which has already found the record among the caller's),
 * or sends a test notification on behalf of `POST /webhooks/{id}/test` (which has authorized the
 * caller).
 */
import type { Context } from 'aws-lambda';
import * as z from 'zod/mini';
import { NotFoundError } from '../../shared/errors';
import { NOTIFICATION_NAMES } from '../../shared/notifications/catalog';
import type { ResendResult } from '../../shared/webhooks/api/retry';
import { resendHistoryRecord } from '../../shared/webhooks/pipeline/resend';
import { sendTest } from '../../shared/webhooks/pipeline/test-send';

const SenderRequestSchema = z.union([
  z.strictObject({
    deliveryId: z.string().check(z.minLength(1), z.maxLength(200)),
    seq: z.int().check(z.positive()),
  }),
  z.strictObject({
    testWebhookId: z.int().check(z.positive()),
    notificationType: z.enum(NOTIFICATION_NAMES),
    caller: z.strictObject({ userId: z.int().check(z.positive()), name: z.string() }),
  }),
]);

export async function handler(event: unknown, context?: Context): Promise<ResendResult> {
  const request = SenderRequestSchema.parse(event);
  try {
    const record =
      'deliveryId' in request
        ? // `seq` is the history table's name for the key (shared/webhooks/store/history-keys.ts).
          await resendHistoryRecord({ deliveryId: request.deliveryId, attemptOrId: request.seq }, context)
        : await sendTest(request.testWebhookId, request.notificationType, request.caller, context);
    return { ok: true, record };
  } catch (error) {
    if (error instanceof NotFoundError) return { ok: false, notFound: error.message };
    throw error;
  }
}
