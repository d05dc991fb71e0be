/**
 * A stored webhook's status. Apart from ./model.ts (whose module scope builds every API schema of
 * the webhooks) so that the delivery consumer, which needs the status and none of those schemas,
 * does not build them at init (`docs/benchmarks.md`, figure 5).
 */
import type { WebhookItem, WebhookStatus } from './model';

/** Items written before webhooks had a status have none: `enabled`. */
export const statusOf = (item: Pick<WebhookItem, 'status'>): WebhookStatus => item.status ?? 'enabled';
