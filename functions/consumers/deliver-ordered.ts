import { queueConsumer } from '../../shared/edge/queue/consumer';
import { deliver, orderedAttempt } from '../../shared/webhooks/pipeline/delivery';
import { QueuedDeliverySchema } from '../../shared/webhooks/pipeline/message';

/**
 * Ordered deliveries queue consumer (ADR 0020): an ordered webhook's deliveries of keyed
 * notifications, a FIFO group per (webhook, key). Keys run side by side; a key's deliveries one
 * after another, each attempt counted from the history; a failed head holds only its key.
 */
export const handler = queueConsumer({
  queue: 'deliveriesOrdered',
  message: { schema: QueuedDeliverySchema, what: 'delivery message' },
  attemptOf: orderedAttempt,
  handle: deliver,
});
