import { sqsConsumer } from '../../shared/edge/queue-consumer';
import { processDelivery } from '../../shared/webhooks/pipeline/delivery';

/**
 * Deliveries queue consumer. A record whose attempt failed is reported as a batch item failure
 * after its visibility was set to the retry delay.
 */
export const handler = sqsConsumer('deliveries', processDelivery);
