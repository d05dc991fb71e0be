import { sqsConsumer } from '../../shared/edge/queue-consumer';
import { processRecoverStep } from '../../shared/webhooks/pipeline/recover';

/** Recoveries queue consumer: one step of a webhook recover job per message. */
export const handler = sqsConsumer('recoveries', processRecoverStep);
