/**
 * The pipeline's queue operations: enqueue deliveries, schedule a retry by message
 * visibility, and move a message to its queue's DLQ with the reason. They are the service's
 * one SQS adapter (`shared/store/queues.ts`); this module names the ones the pipeline uses.
 */
export { delayRetry, sendAll, sendToDeadLetter } from '../../store/queues';
