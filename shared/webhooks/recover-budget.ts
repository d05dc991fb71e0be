/**
 * The re-send budget of a user's recover jobs (issue 34, item 10): a generic cell rate algorithm
 * over one hour, weighted by deliveries. Its state is one number, the time at which the user's
 * budget is whole again (`tat`, epoch ms): re-sending n deliveries moves it on by n hours /
 * perHour from now or from where it stands, and is refused when that would put it more than an
 * hour ahead. So a user may start perHour re-sends at once and then perHour per rolling hour, and
 * a refusal knows to the millisecond when the same job fits.
 */

export const BUDGET_PERIOD_MS = 3_600_000;

export type BudgetCharge = { ok: true; tat: number } | { ok: false; retryAt: number };

/** Charges `cost` re-sends (at most `perHour`) to a budget standing at `tat` (absent: whole). */
export function chargeBudget(
  tat: number | undefined,
  cost: number,
  perHour: number,
  now: number,
): BudgetCharge {
  const next = Math.max(tat ?? now, now) + Math.ceil((cost * BUDGET_PERIOD_MS) / perHour);
  return next - now <= BUDGET_PERIOD_MS
    ? { ok: true, tat: next }
    : { ok: false, retryAt: next - BUDGET_PERIOD_MS };
}
