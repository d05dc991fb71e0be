import { queueConsumer } from '../../shared/edge/queue/consumer';
import { deliver } from '../../shared/webhooks/pipeline/delivery';
import { QueuedDeliverySchema } from '../../shared/webhooks/pipeline/message';

/**
 * Ordered deliveries queue consumer (ADR 0020): an ordered webhook's deliveries of keyed
 * notifications, a FIFO group per (webhook, key). Keys run side by side; a key's deliveries one
 * after another, each attempt counted from the history; a failed head holds only its key, and a key
 * whose schedule ran out is parked until an operator resumes or skips it (its drain message).
 */
export const handler = queueConsumer({
  queue: 'deliveriesOrdered',
  message: { schema: QueuedDeliverySchema, what: 'delivery message' },
  // The attempt is counted from the delivery's history, which the due check reads anyway.
  attemptsUnused: true,
  handle: deliver,
});
