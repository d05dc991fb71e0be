import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import { processDelivery } from '../../shared/webhooks/delivery';

const recordHandler = async (record: SQSRecord): Promise<void> => {
  await processDelivery(record);
};

/**
 * Deliveries queue consumer. Records run concurrently (one slow receiver does not delay the
 * others); a record whose attempt failed is reported as a batch item failure after its
 * visibility was set to the retry delay. One processor per invocation: a processor holds the
 * batch's state, and the local cloud runs concurrent invocations of this module in one process.
 */
export const handler = async (event: SQSEvent, context: Context) =>
  processPartialResponse(event, recordHandler, new BatchProcessor(EventType.SQS), {
    context,
    processInParallel: true,
    // A batch whose every record scheduled a retry is not an error of the function.
    throwOnFullBatchFailure: false,
  });
