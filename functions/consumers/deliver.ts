import { queueConsumer } from '../../shared/edge/queue/consumer';
import { deliver } from '../../shared/webhooks/pipeline/delivery';
import { attemptsBefore, QueuedDeliverySchema } from '../../shared/webhooks/pipeline/message';

/**
 * Deliveries queue consumer: one attempt per message; a failed attempt comes back after its
 * retry delay (the edge sets the message's visibility), a throttled one is sent again for its slot.
 */
export const handler = queueConsumer({
  queue: 'deliveries',
  message: { schema: QueuedDeliverySchema, what: 'delivery message' },
  attemptsBefore,
  handle: deliver,
});
