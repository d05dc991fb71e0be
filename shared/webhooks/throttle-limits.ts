/**
 * The bounds of a webhook's delivery limit (`maxDeliveriesPerSecond`). Apart from ./model.ts so
 * that the delivery consumer reads them without building the webhook API schemas at init
 * (`docs/benchmarks.md`, figure 5).
 */

/** Deliveries per second a throttled webhook receives at most (stage-independent bounds). */
export const MAX_DELIVERIES_PER_SECOND = 1000;

/**
 * The lowest limit: one delivery per 100 s. Lower ones stall a webhook for good (its next slot
 * years away) and their slot arithmetic leaves the safe integers (issue 34, item 13).
 */
export const MIN_DELIVERIES_PER_SECOND = 0.01;
