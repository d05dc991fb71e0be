/**
 * One attempt into a webhook's SNS destination (ADR 0019): `Publish` to the customer's topic with
 * their role's credentials, the message exactly the body an HTTPS receiver gets, and `webhook-id`,
 * `webhook-timestamp` and `webhook-signature` as String message attributes. A subscriber sees
 * them as published: an SQS subscription with raw message delivery gets the body and the
 * attributes as an SQS destination would (without it, SNS wraps both in its own JSON envelope).
 * Clients, credentials, FIFO ids and the outcome's form are shared with SQS and EventBridge
 * (./send.ts).
 *
 * A FIFO topic (`.fifo`) gets the ids a FIFO queue gets: MessageGroupId = the delivery id,
 * MessageDeduplicationId = SHA-256 of (delivery id, attempt, retried record, recover job).
 *
 * A success is 200 with `{"messageId": …}`. SNS's `NotFound` (the topic no longer exists) is
 * `gone`; everything else — `AuthorizationError`, throttling, a KMS key, a 5xx — `failed`.
 */
import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { withoutSdkLogging } from '../../config/sdk-clients';
import type { SnsDestination } from '../destination';
import type { SendIdentity } from '../pipeline/attempt';
import type { AttemptOutcome } from '../pipeline/transport';
import {
  type AwsService,
  type DestinationRequest,
  messageFields,
  type SendingWebhook,
  sendWithRole,
} from './send';

const SNS: AwsService<SNSClient> = {
  name: 'sns',
  client: (config) => withoutSdkLogging(new SNSClient(config)),
  // The topic does not exist (the query protocol's code, the SDK's name).
  goneCodes: new Set(['NotFound', 'NotFoundException']),
};

/** Publishes one signed delivery to the webhook's topic; never throws (every failure is an outcome). */
export function publishToTopic(
  destination: SnsDestination,
  webhook: SendingWebhook,
  request: DestinationRequest,
  identity: SendIdentity,
): Promise<AttemptOutcome> {
  return sendWithRole(destination, webhook, SNS, async (client, topic) => {
    const sent = await client.send(
      new PublishCommand({
        TopicArn: destination.topicArn,
        Message: request.body,
        ...messageFields(request, topic.fifo, identity),
      }),
    );
    return { sent: { messageId: sent.MessageId } };
  });
}
