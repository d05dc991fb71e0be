/**
 * The format of a delivery's id. Apart from ./model.ts (whose module scope builds every API
 * schema of the webhooks) so that the delivery consumer can check it without building them
 * (`docs/benchmarks.md`, figure 5).
 */

/** A delivery's id, sent as the `webhook-id` header: `msg_<32 hex of the notification digest>_<webhookId>`. */
export const DELIVERY_ID = /^msg_[0-9a-f]{32}_\d+$/;
