import { sqsConsumer } from '../../shared/edge/queue-consumer';
import { processNotification } from '../../shared/webhooks/pipeline/fan-out';

/** Notifications queue consumer: one record failing never fails the others (partial batch response). */
export const handler = sqsConsumer('notifications', processNotification);
