/**
 * One attempt into a webhook's EventBridge destination (ADR 0019): `PutEvents` with one entry on
 * the customer's bus (`EventBusName` = its ARN), with their role's credentials:
 * - `Detail`: the JSON an HTTPS receiver gets, as it is (EventBridge parses and re-serialises it,
 *   so the event's `detail` is the payload but not its bytes: no signature could be verified, and
 *   none is sent — a receiver relies on IAM on its bus, docs/webhooks.md);
 * - `Source`: the destination's `source`, default `causeway.webhooks`; `DetailType`: its
 *   `detailType`, default the notification type;
 * - `Resources`: the delivery id (the `webhook-id` an HTTPS receiver gets), the same for every
 *   attempt of a delivery, so a receiver deduplicates on the event's `resources[0]` (the event's
 *   own `id` is new on every PutEvents).
 *
 * A success is 200 with `{"eventId": …}`. EventBridge reports a refused entry inside an HTTP 200
 * (`FailedEntryCount`): that is a failure, recorded with a non-2xx status by the entry's
 * `ErrorCode` — 429 for `ThrottlingException`, 500 for `InternalFailure`, 400 for anything else
 * — and `{code, message}` from the entry, since "delivered" is exactly a 2xx (../outcome-class.ts).
 * `ResourceNotFoundException` (the bus no longer exists) is `gone`; every other error `failed`.
 * Clients, credentials and the outcome's form are shared with SQS and SNS (./send.ts).
 */
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { withoutSdkLogging } from '../../config/sdk-clients';
import { DEFAULT_EVENT_SOURCE, type EventBridgeDestination } from '../destination';
import type { SendIdentity } from '../pipeline/attempt';
import type { AttemptOutcome } from '../pipeline/transport';
import { type AwsService, type DestinationRequest, type SendingWebhook, sendWithRole } from './send';

const EVENTS: AwsService<EventBridgeClient> = {
  name: 'events',
  client: (config) => withoutSdkLogging(new EventBridgeClient(config)),
  // The bus does not exist.
  goneCodes: new Set(['ResourceNotFoundException']),
};

/** The status a refused entry is recorded with (a non-2xx: it was not delivered). */
function entryFailureStatus(errorCode: string): number {
  if (errorCode === 'ThrottlingException') return 429;
  if (errorCode === 'InternalFailure' || errorCode.startsWith('ServiceUnavailable')) return 500;
  return 400;
}

/** Puts one delivery on the webhook's event bus as an event; never throws (every failure is an outcome). */
export function putOnBus(
  destination: EventBridgeDestination,
  webhook: SendingWebhook,
  request: DestinationRequest,
  identity: SendIdentity,
): Promise<AttemptOutcome> {
  return sendWithRole(destination, webhook, EVENTS, async (client) => {
    const answer = await client.send(
      new PutEventsCommand({
        Entries: [
          {
            EventBusName: destination.eventBusArn,
            Source: destination.source ?? DEFAULT_EVENT_SOURCE,
            DetailType: destination.detailType ?? identity.notificationType,
            Detail: request.body,
            Resources: [identity.deliveryId],
          },
        ],
      }),
    );
    const entry = answer.Entries?.[0];
    if ((answer.FailedEntryCount ?? 0) === 0 && entry?.EventId !== undefined)
      return { sent: { eventId: entry.EventId } };
    const code = entry?.ErrorCode ?? 'FailedEntry';
    const message = entry?.ErrorMessage ?? 'EventBridge did not accept the event';
    return { refused: { statusCode: entryFailureStatus(code), code, message } };
  });
}
