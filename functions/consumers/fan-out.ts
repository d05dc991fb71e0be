import { queueConsumer } from '../../shared/edge/queue/consumer';
import { fanOut, fanOutMessage } from '../../shared/webhooks/pipeline/fan-out';

/** Notifications queue consumer: one fan-out step per message (a notification, or a step's follow-up). */
export const handler = queueConsumer({ queue: 'notifications', message: fanOutMessage, handle: fanOut });
