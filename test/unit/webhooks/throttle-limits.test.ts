/**
 * The bounds of `maxDeliveriesPerSecond` (issue 34, item 13): 1e-300 answered 500 (DynamoDB
 * refuses the number) and 1e-100 was stored, after which every delivery failed in the consumer on
 * an unsafe integer (its slot 1e103 ms away). The schema refuses both; the delivery clock steps in
 * whole milliseconds, within the safe integers, for any limit — one stored before the bound too.
 */
import { describe, expect, it } from 'vitest';
import { WebhookInputSchema, WebhookPatchSchema } from '../../../shared/webhooks/model';
import { slotIntervalMs } from '../../../shared/webhooks/pipeline/throttle';
import {
  MAX_DELIVERIES_PER_SECOND,
  MIN_DELIVERIES_PER_SECOND,
} from '../../../shared/webhooks/throttle-limits';

const entry = {
  name: 'n',
  url: 'https://hooks.example.com/x',
  global: false,
  notificationType: ['modelAccessRequested'],
  actionType: 'triggered',
};

describe('maxDeliveriesPerSecond', () => {
  it('refuses limits below one delivery per 100 s and above 1000/s, on create and PATCH', () => {
    for (const rate of [1e-300, 1e-100, 0.001, 0.0099, 0, -1, 1000.5]) {
      expect(
        WebhookInputSchema.safeParse({ ...entry, maxDeliveriesPerSecond: rate }).success,
        String(rate),
      ).toBe(false);
      expect(WebhookPatchSchema.safeParse({ maxDeliveriesPerSecond: rate }).success, String(rate)).toBe(
        false,
      );
    }
    for (const rate of [MIN_DELIVERIES_PER_SECOND, 0.5, 3, MAX_DELIVERIES_PER_SECOND]) {
      expect(WebhookPatchSchema.safeParse({ maxDeliveriesPerSecond: rate }).success, String(rate)).toBe(true);
    }
  });

  it('steps the delivery clock in whole milliseconds, never faster than the limit', () => {
    expect(slotIntervalMs(5)).toBe(200);
    expect(slotIntervalMs(3)).toBe(334);
    expect(slotIntervalMs(1000)).toBe(1);
    expect(slotIntervalMs(MIN_DELIVERIES_PER_SECOND)).toBe(100_000);
  });

  it('reads a limit stored below the bound (before it existed) as the bound: the clock stays safe', () => {
    for (const stored of [1e-100, 1e-300, Number.MIN_VALUE]) {
      const step = slotIntervalMs(stored);
      expect(step).toBe(100_000);
      // Ten million deliveries queued behind each other still name a safe slot.
      expect(Number.isSafeInteger(Date.now() + step * 10_000_000)).toBe(true);
    }
  });
});
