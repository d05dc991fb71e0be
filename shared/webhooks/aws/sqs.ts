/**
 * One attempt into a webhook's SQS destination (ADR 0019): `SendMessage` with the customer's
 * role's credentials (./credentials.ts), the body exactly what an HTTPS receiver gets, and
 * `webhook-id`, `webhook-timestamp` and `webhook-signature` as String message attributes, as the
 * HTTP headers carry them.
 *
 * A FIFO queue (`.fifo`) gets MessageGroupId = the delivery id (an unordered webhook's deliveries
 * are independent: one group per webhook would order the whole endpoint) and MessageDeduplicationId
 * = SHA-256 of (delivery id, attempt, retried record, recover job): a second message of the same
 * attempt is deduplicated by SQS, while a manual retry or a recover job's re-send, which are new
 * attempts, never are.
 *
 * The outcome, in the history's form: a success is 200 with `{"messageId": …}`; a failure is AWS's
 * HTTP status (500 when none came back) with `{code, message}` from the error. A queue that no
 * longer exists is `gone` (the webhook is disabled at once); access denied, throttling and
 * anything else `failed` (retried on the schedule, counted in health). A role that refuses to be
 * assumed is a failed attempt with STS's code.
 *
 * The client never takes `AWS_ENDPOINT_URL_SQS` (locally the service's own queues) and never the
 * queue URL's host: its endpoint is given (`awsEndpoint`), with `useQueueUrlAsEndpoint: false`.
 */
import { createHash } from 'node:crypto';
import { type MessageAttributeValue, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { type Destination, parseQueueUrl } from '../destination';
import type { OutcomeClass } from '../outcome-class';
import type { SendIdentity } from '../pipeline/attempt';
import type { AttemptOutcome } from '../pipeline/transport';
import {
  AssumeRoleRefused,
  awsEndpoint,
  type CustomerRole,
  clientLimits,
  customerCredentials,
} from './credentials';

/** The headers carried as message attributes. */
const ATTRIBUTE_HEADERS = ['webhook-id', 'webhook-timestamp', 'webhook-signature'] as const;

/** Errors that mean the queue does not exist (the JSON protocol's name, the query protocol's code). */
const QUEUE_GONE = new Set(['QueueDoesNotExist', 'AWS.SimpleQueueService.NonExistentQueue']);

/** Error codes met before any answer came back (the history's `connect: true`). */
const NO_CONNECTION = /^(ECONNREFUSED|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH|ECONNRESET)$/;

/** Clients kept at most (one per customer session); the oldest is dropped first. */
const MAX_CLIENTS = 500;
const sqsClients = new Map<string, SQSClient>();

/** A FIFO message's deduplication id: unique per attempt, manual retry and recover re-send. */
export function deduplicationId(identity: SendIdentity): string {
  const parts = [identity.deliveryId, identity.attempt, identity.retryOf ?? '', identity.recoverJob ?? ''];
  return createHash('sha256').update(parts.join('\n')).digest('hex');
}

function sqsClient(role: CustomerRole, region: string): SQSClient {
  const key = `${region}\n${role.roleArn}\n${role.externalId}\n${role.webhookId}`;
  let client = sqsClients.get(key);
  if (client === undefined) {
    client = new SQSClient({
      region,
      endpoint: awsEndpoint('sqs', region),
      useQueueUrlAsEndpoint: false,
      credentials: () => customerCredentials(role),
      ...clientLimits(),
    });
    sqsClients.set(key, client);
    if (sqsClients.size > MAX_CLIENTS) {
      const [oldestKey, oldest] = sqsClients.entries().next().value ?? [];
      if (oldestKey !== undefined) sqsClients.delete(oldestKey);
      oldest?.destroy();
    }
  }
  return client;
}

function outcome(
  statusCode: number,
  response: AttemptOutcome['response'],
  outcomeClass: OutcomeClass,
  startedAt: number,
): AttemptOutcome {
  return {
    statusCode,
    response,
    outcomeClass,
    delivered: outcomeClass === 'delivered',
    durationMs: Date.now() - startedAt,
  };
}

/** The history form of an AWS (or STS) error. */
function failure(error: unknown, startedAt: number): AttemptOutcome {
  const e = error as {
    name?: string;
    Code?: string;
    code?: string;
    message?: string;
    $metadata?: { httpStatusCode?: number };
  };
  const code =
    error instanceof AssumeRoleRefused
      ? error.code
      : (e.Code ?? (typeof e.code === 'string' ? e.code : e.name) ?? 'Error');
  const httpStatusCode =
    error instanceof AssumeRoleRefused ? error.httpStatusCode : e.$metadata?.httpStatusCode;
  const message = String(
    error instanceof AssumeRoleRefused ? `AssumeRole refused: ${error.message}` : (e.message ?? error),
  ).slice(0, 1000);
  const gone = QUEUE_GONE.has(code) || QUEUE_GONE.has(e.name ?? '');
  const result = outcome(
    httpStatusCode ?? 500,
    { body: { code, connect: httpStatusCode === undefined && NO_CONNECTION.test(code), message } },
    gone ? 'gone' : 'failed',
    startedAt,
  );
  result.failureCode = code;
  return result;
}

/** Sends one signed delivery to the webhook's queue; never throws (every failure is an outcome). */
export async function sendToQueue(
  destination: Destination,
  webhook: { id: number; externalId?: string },
  request: { body: string; headers: Record<string, string> },
  identity: SendIdentity,
): Promise<AttemptOutcome> {
  const startedAt = Date.now();
  const queue = parseQueueUrl(destination.queueUrl);
  const role: CustomerRole = {
    roleArn: destination.roleArn,
    externalId: webhook.externalId ?? '',
    webhookId: webhook.id,
  };
  const attributes: Record<string, MessageAttributeValue> = {};
  for (const name of ATTRIBUTE_HEADERS) {
    const value = request.headers[name];
    if (value !== undefined) attributes[name] = { DataType: 'String', StringValue: value };
  }
  try {
    // Assumed first, so a refusal is told apart from the send's own errors.
    await customerCredentials(role);
    const sent = await sqsClient(role, queue.region).send(
      new SendMessageCommand({
        QueueUrl: destination.queueUrl,
        MessageBody: request.body,
        MessageAttributes: attributes,
        ...(queue.fifo
          ? { MessageGroupId: identity.deliveryId, MessageDeduplicationId: deduplicationId(identity) }
          : {}),
      }),
    );
    return outcome(
      200,
      { body: JSON.stringify({ messageId: sent.MessageId }), json: true },
      'delivered',
      startedAt,
    );
  } catch (error) {
    return failure(error, startedAt);
  }
}
