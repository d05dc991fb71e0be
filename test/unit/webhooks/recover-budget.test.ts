/**
 * The re-send budget of recover jobs (issue 34, item 10): a rolling hour weighted by deliveries.
 * A whole budget takes a job of up to `perHour` re-sends at once; then it refills at perHour per
 * hour, and a refusal names the moment the same job fits.
 */
import { describe, expect, it } from 'vitest';
import { BUDGET_PERIOD_MS, chargeBudget } from '../../../shared/webhooks/recover-budget';

const HOUR = BUDGET_PERIOD_MS;
const t0 = Date.parse('2026-11-26T10:00:00Z');

describe('chargeBudget', () => {
  it('takes a whole budget at once, then nothing more until it refills', () => {
    const full = chargeBudget(undefined, 40, 40, t0);
    expect(full).toEqual({ ok: true, tat: t0 + HOUR });
    if (!full.ok) return;
    // One more re-send fits after 1/40 hour (90 s).
    expect(chargeBudget(full.tat, 1, 40, t0)).toEqual({ ok: false, retryAt: t0 + 90_000 });
    expect(chargeBudget(full.tat, 1, 40, t0 + 90_000)).toEqual({ ok: true, tat: t0 + HOUR + 90_000 });
    // Ten more after 15 minutes: weighted by deliveries.
    expect(chargeBudget(full.tat, 10, 40, t0 + 60_000)).toEqual({ ok: false, retryAt: t0 + 900_000 });
  });

  it('adds up smaller jobs, and a budget left alone for an hour is whole again', () => {
    let tat: number | undefined;
    for (const [cost, at] of [
      [10, t0],
      [10, t0 + 1_000],
      [20, t0 + 2_000],
    ] as const) {
      const charge = chargeBudget(tat, cost, 40, at);
      expect(charge.ok).toBe(true);
      if (charge.ok) tat = charge.tat;
    }
    expect(tat).toBe(t0 + HOUR);
    expect(chargeBudget(tat, 40, 40, t0 + HOUR)).toEqual({ ok: true, tat: t0 + 2 * HOUR });
    // A job that sends nothing always starts, and charges nothing.
    expect(chargeBudget(tat, 0, 40, t0 + 5_000)).toEqual({ ok: true, tat });
  });
});
