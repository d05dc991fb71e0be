import { afterEach, describe, expect, it } from 'vitest';
import { MAX_DELIVERY_RETRIES as MAX_RETRIES } from '../../../shared/catalog/queues';
import { retrySchedule } from '../../../shared/webhooks/config';

describe('retry schedule bound', () => {
  const saved = process.env.WEBHOOK_RETRY_SCHEDULE;
  afterEach(() => {
    if (saved === undefined) delete process.env.WEBHOOK_RETRY_SCHEDULE;
    else process.env.WEBHOOK_RETRY_SCHEDULE = saved;
  });

  it('refuses a schedule longer than the deliveries queue redrive allows', () => {
    expect(MAX_RETRIES).toBe(11);
    process.env.WEBHOOK_RETRY_SCHEDULE = Array.from({ length: MAX_RETRIES }, () => '1').join(',');
    expect(retrySchedule()).toHaveLength(MAX_RETRIES);
    process.env.WEBHOOK_RETRY_SCHEDULE = Array.from({ length: MAX_RETRIES + 1 }, () => '1').join(',');
    expect(() => retrySchedule()).toThrow(/at most 11/);
  });
});
