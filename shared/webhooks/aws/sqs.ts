/**
 * One attempt into a webhook's SQS destination (ADR 0019): `SendMessage` with the customer's
 * role's credentials, the body exactly what an HTTPS receiver gets, and `webhook-id`,
 * `webhook-timestamp` and `webhook-signature` as String message attributes, as the HTTP headers
 * carry them. Clients, credentials, FIFO ids and the outcome's form are shared with SNS and
 * EventBridge (./send.ts).
 *
 * A FIFO queue (`.fifo`) gets MessageGroupId = the delivery id (an unordered webhook's deliveries
 * are independent: one group per webhook would order the whole endpoint) and MessageDeduplicationId
 * = SHA-256 of (delivery id, attempt, retried record, recover job): a second message of the same
 * attempt is deduplicated by SQS, while a manual retry or a recover job's re-send, which are new
 * attempts, never are.
 *
 * A success is 200 with `{"messageId": …}`. A queue that no longer exists is `gone` (the webhook
 * is disabled at once); everything else `failed`.
 *
 * The client never takes `AWS_ENDPOINT_URL_SQS` (locally the service's own queues) and never the
 * queue URL's host: its endpoint is given, with `useQueueUrlAsEndpoint: false`.
 */
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { withoutSdkLogging } from '../../config/sdk-clients';
import type { SqsDestination } from '../destination';
import type { SendIdentity } from '../pipeline/attempt';
import type { AttemptOutcome } from '../pipeline/transport';
import {
  type AwsService,
  type DestinationRequest,
  messageFields,
  type SendingWebhook,
  sendWithRole,
} from './send';

const SQS: AwsService<SQSClient> = {
  name: 'sqs',
  client: (config) => withoutSdkLogging(new SQSClient({ ...config, useQueueUrlAsEndpoint: false })),
  // The queue does not exist (the JSON protocol's name, the query protocol's code).
  goneCodes: new Set(['QueueDoesNotExist', 'AWS.SimpleQueueService.NonExistentQueue']),
};

/** Sends one signed delivery to the webhook's queue; never throws (every failure is an outcome). */
export function sendToQueue(
  destination: SqsDestination,
  webhook: SendingWebhook,
  request: DestinationRequest,
  identity: SendIdentity,
): Promise<AttemptOutcome> {
  return sendWithRole(destination, webhook, SQS, async (client, queue) => {
    const sent = await client.send(
      new SendMessageCommand({
        QueueUrl: destination.queueUrl,
        MessageBody: request.body,
        ...messageFields(request, queue.fifo, identity),
      }),
    );
    return { sent: { messageId: sent.MessageId } };
  });
}
