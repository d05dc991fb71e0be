import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import { processDelivery } from '../../shared/webhooks/delivery';

const processor = new BatchProcessor(EventType.SQS);

const recordHandler = async (record: SQSRecord): Promise<void> => {
  await processDelivery(record);
};

/**
 * Deliveries queue consumer. Records run concurrently (one slow receiver does not delay the
 * others); a record whose attempt failed is reported as a batch item failure after its
 * visibility was set to the retry delay.
 */
export const handler = async (event: SQSEvent, context: Context) =>
  processPartialResponse(event, recordHandler, processor, { context, processInParallel: true });
