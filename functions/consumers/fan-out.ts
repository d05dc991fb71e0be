import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import { processNotification } from '../../shared/webhooks/fan-out';

const recordHandler = async (record: SQSRecord): Promise<void> => {
  await processNotification(record);
};

/** Notifications queue consumer: one record failing never fails the others (partial batch response). */
// One processor per invocation: a processor holds the batch's state, and the local cloud runs
// concurrent invocations of this module in one process.
export const handler = async (event: SQSEvent, context: Context) =>
  processPartialResponse(event, recordHandler, new BatchProcessor(EventType.SQS), {
    context,
    processInParallel: true,
    // A batch whose every record scheduled a retry is not an error of the function.
    throwOnFullBatchFailure: false,
  });
