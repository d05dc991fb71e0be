/**
 * The AWS destination transports' outcomes (shared/webhooks/aws/{sqs,sns,eventbridge}.ts over
 * ./send.ts; issue 40, steps 4 and 5), with STS and the customer's services stubbed: what each
 * sends, and how every answer is recorded and classed. The sandbox account runs the real calls
 * (test/integration/webhooks/aws-destination.test.ts).
 */
import { EventBridgeClient, type PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { type PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { type SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { STSClient } from '@aws-sdk/client-sts';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DELIVERY_PRINCIPAL_ENV } from '../../../shared/catalog/access';
import type { Destination } from '../../../shared/webhooks/destination';

const ROLE = 'arn:aws:iam::123456789012:role/deliveries';
const REFUSING = 'arn:aws:iam::123456789012:role/refusing';
const queueUrl = 'https://sqs.eu-west-1.amazonaws.com/123456789012/orders';
const topicArn = 'arn:aws:sns:eu-west-1:123456789012:orders';
const eventBusArn = 'arn:aws:events:eu-west-1:123456789012:event-bus/orders';
const request = {
  body: '{"text":"hi"}',
  headers: {
    'webhook-id': 'msg_1',
    'webhook-timestamp': '1700000000',
    'webhook-signature': 'v1,abc',
    traceparent: 't',
  },
};
const identity = { deliveryId: 'msg_1', attempt: 2, notificationType: 'modelCreated' };
const attributes = {
  'webhook-id': { DataType: 'String', StringValue: 'msg_1' },
  'webhook-timestamp': { DataType: 'String', StringValue: '1700000000' },
  'webhook-signature': { DataType: 'String', StringValue: 'v1,abc' },
};

type Sent = { service: string; input: Record<string, unknown>; config: Record<string, unknown> };
let sent: Sent[];
/** What the customer's service answers (each test may replace it). */
let answer: (service: string) => Promise<unknown>;

const awsError = (name: string, status: number, message = name, extra: Record<string, unknown> = {}) =>
  Object.assign(new Error(message), { name, $metadata: { httpStatusCode: status }, ...extra });

const sqs = (url = queueUrl, roleArn = ROLE): Destination => ({ type: 'sqs', queueUrl: url, roleArn });
const sns = (arn = topicArn, roleArn = ROLE): Destination => ({ type: 'sns', topicArn: arn, roleArn });
const bus = (extra: Record<string, string> = {}, roleArn = ROLE): Destination => ({
  type: 'eventbridge',
  eventBusArn,
  roleArn,
  ...extra,
});
const webhook = { id: 7, externalId: 'ext-1' };

/** The transport for a destination, loaded afresh (empty caches), as attempt.ts picks it. */
async function send(destination: Destination, id = identity) {
  vi.resetModules();
  const { send: sendTo } = await import('../../../shared/webhooks/pipeline/attempt');
  return sendTo({ ...webhook, destination } as never, request, id);
}

/** The tries a client was configured with (the SDK's config holds a provider). */
const maxAttempts = (call: Sent | undefined) =>
  (call?.config.maxAttempts as (() => Promise<number>) | undefined)?.();

function stub(client: { prototype: { send: unknown } }, service: string) {
  vi.spyOn(client.prototype as { send: () => unknown }, 'send').mockImplementation(async function (
    this: { config: Record<string, unknown> },
    command: SendMessageCommand | PublishCommand | PutEventsCommand,
  ) {
    sent.push({ service, input: command.input as never, config: this.config });
    return answer(service);
  } as never);
}

describe('the AWS destination transports', () => {
  beforeEach(() => {
    vi.stubEnv('AWS_REGION', 'us-east-1');
    vi.stubEnv(DELIVERY_PRINCIPAL_ENV, 'arn:aws:iam::000000000000:role/causeway-test-webhook-delivery');
    vi.spyOn(STSClient.prototype, 'send').mockImplementation((async (command: {
      input: { RoleArn: string };
    }) => {
      if (command.input.RoleArn === REFUSING) throw awsError('AccessDenied', 403, 'not authorized');
      return {
        Credentials: {
          AccessKeyId: 'AKIA',
          SecretAccessKey: 's',
          SessionToken: 't',
          Expiration: new Date(Date.now() + 3_600_000),
        },
      };
    }) as never);
    sent = [];
    answer = async (service) =>
      service === 'events' ? { FailedEntryCount: 0, Entries: [{ EventId: 'e-1' }] } : { MessageId: 'm-1' };
    stub(SQSClient, 'sqs');
    stub(SNSClient, 'sns');
    stub(EventBridgeClient, 'events');
  });
  afterEach(() => {
    vi.unstubAllEnvs();
    vi.restoreAllMocks();
  });

  describe('SQS', () => {
    it('sends the body with the signature headers as String attributes; a success is 200 with the message id', async () => {
      const outcome = await send(sqs());
      expect(outcome).toMatchObject({
        statusCode: 200,
        outcomeClass: 'delivered',
        delivered: true,
        response: { body: '{"messageId":"m-1"}', json: true },
      });
      expect(sent[0]?.input).toEqual({
        QueueUrl: queueUrl,
        MessageBody: request.body,
        MessageAttributes: attributes,
      });
      expect(sent[0]?.config.useQueueUrlAsEndpoint).toBe(false);
      expect(await maxAttempts(sent[0])).toBe(1);
    });

    it('gives a FIFO queue the delivery id as group and a deduplication id of the attempt', async () => {
      const { deduplicationId } = await import('../../../shared/webhooks/aws/send');
      await send(sqs(`${queueUrl}.fifo`));
      expect(sent[0]?.input).toMatchObject({
        MessageGroupId: 'msg_1',
        MessageDeduplicationId: deduplicationId(identity),
      });
    });

    it('records a missing queue as gone, with AWS’s status, code and message', async () => {
      answer = async () => {
        throw awsError('QueueDoesNotExist', 400, 'The specified queue does not exist.');
      };
      expect(await send(sqs())).toMatchObject({
        statusCode: 400,
        outcomeClass: 'gone',
        delivered: false,
        response: {
          body: { code: 'QueueDoesNotExist', connect: false, message: 'The specified queue does not exist.' },
        },
      });
    });
  });

  describe('SNS', () => {
    it('publishes the body with the signature attributes; a success is 200 with the message id', async () => {
      const outcome = await send(sns());
      expect(outcome).toMatchObject({
        statusCode: 200,
        outcomeClass: 'delivered',
        response: { body: '{"messageId":"m-1"}', json: true },
      });
      expect(sent[0]).toMatchObject({ service: 'sns' });
      expect(sent[0]?.input).toEqual({
        TopicArn: topicArn,
        Message: request.body,
        MessageAttributes: attributes,
      });
      expect(await maxAttempts(sent[0])).toBe(1);
    });

    it('gives a FIFO topic the delivery id as group and the attempt’s deduplication id', async () => {
      const { deduplicationId } = await import('../../../shared/webhooks/aws/send');
      await send(sns(`${topicArn}.fifo`));
      expect(sent[0]?.input).toMatchObject({
        MessageGroupId: 'msg_1',
        MessageDeduplicationId: deduplicationId(identity),
      });
    });

    it('records a missing topic (NotFound) as gone', async () => {
      answer = async () => {
        throw awsError('NotFoundException', 404, 'Topic does not exist', { Code: 'NotFound' });
      };
      expect(await send(sns())).toMatchObject({
        statusCode: 404,
        outcomeClass: 'gone',
        response: { body: { code: 'NotFound', message: 'Topic does not exist' } },
      });
    });
  });

  describe('EventBridge', () => {
    it('puts one event: detail the payload, the delivery id as its resource, source and detail type defaulted', async () => {
      const outcome = await send(bus());
      expect(outcome).toMatchObject({
        statusCode: 200,
        outcomeClass: 'delivered',
        response: { body: '{"eventId":"e-1"}', json: true },
      });
      expect(sent[0]?.input).toEqual({
        Entries: [
          {
            EventBusName: eventBusArn,
            Source: 'causeway.webhooks',
            DetailType: 'modelCreated',
            Detail: request.body,
            Resources: ['msg_1'],
          },
        ],
      });
      expect(await maxAttempts(sent[0])).toBe(1);
    });

    it('uses the destination’s source and detail type', async () => {
      await send(bus({ source: 'com.example.orders', detailType: 'Order event' }));
      expect(sent[0]?.input).toMatchObject({
        Entries: [{ Source: 'com.example.orders', DetailType: 'Order event' }],
      });
    });

    it.each([
      ['InternalFailure', 500],
      ['ThrottlingException', 429],
      ['MalformedDetail', 400],
    ])('records an entry refused with %s inside HTTP 200 as a failed attempt (%i)', async (code, status) => {
      answer = async () => ({
        FailedEntryCount: 1,
        Entries: [{ ErrorCode: code, ErrorMessage: `refused: ${code}` }],
      });
      const outcome = await send(bus());
      expect(outcome).toMatchObject({
        statusCode: status,
        outcomeClass: 'failed',
        delivered: false,
        failureCode: code,
        response: { body: { code, connect: false, message: `refused: ${code}` } },
      });
    });

    it('records a missing bus (ResourceNotFoundException) as gone', async () => {
      answer = async () => {
        throw awsError('ResourceNotFoundException', 400, 'Event bus orders does not exist.');
      };
      expect(await send(bus())).toMatchObject({
        statusCode: 400,
        outcomeClass: 'gone',
        response: { body: { code: 'ResourceNotFoundException' } },
      });
    });
  });

  describe.each([
    ['SQS', sqs, (roleArn: string) => sqs(queueUrl, roleArn)],
    ['SNS', sns, (roleArn: string) => sns(topicArn, roleArn)],
    ['EventBridge', bus, (roleArn: string) => bus({}, roleArn)],
  ])('%s failures', (_name, destination, withRole) => {
    it.each([
      ['AccessDenied', 403],
      ['AuthorizationError', 403],
      ['ThrottlingException', 400],
      ['InternalError', 500],
    ])('records %s as a failed attempt (retried, counted in health)', async (name, status) => {
      answer = async () => {
        throw awsError(name, status);
      };
      expect(await send(destination())).toMatchObject({
        statusCode: status,
        outcomeClass: 'failed',
        response: { body: { code: name } },
      });
    });

    it('records an error without an HTTP answer as 500', async () => {
      answer = async () => {
        throw Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
      };
      expect(await send(destination())).toMatchObject({
        statusCode: 500,
        outcomeClass: 'failed',
        response: { body: { code: 'ECONNREFUSED', connect: true } },
      });
    });

    it('records a role that refuses to be assumed as a failed attempt with STS’s code, and sends nothing', async () => {
      expect(await send(withRole(REFUSING))).toMatchObject({
        statusCode: 403,
        outcomeClass: 'failed',
        response: { body: { code: 'AccessDenied', message: expect.stringMatching(/^AssumeRole refused: /) } },
      });
      expect(sent).toEqual([]);
    });
  });
});
