/**
 * The pipeline's queue operations: enqueue deliveries, send one later (a throttled delivery),
 * schedule a retry by message visibility, and move a message to its queue's DLQ with the
 * reason. They are the service's one SQS adapter (`shared/store/queues.ts`); this module names
 * the ones the pipeline uses.
 */
export { delayRetry, sendAll, sendDelayed, sendToDeadLetter } from '../../store/queues';
