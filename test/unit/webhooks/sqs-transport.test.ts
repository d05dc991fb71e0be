/**
 * The SQS destination transport's outcomes (shared/webhooks/aws/sqs.ts; issue 40, step 4), with
 * STS and SQS stubbed: what is sent, and how every answer is recorded and classed. The sandbox
 * account runs the real calls (test/integration/webhooks/aws-destination.test.ts).
 */
import { type SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { STSClient } from '@aws-sdk/client-sts';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DELIVERY_PRINCIPAL_ENV } from '../../../shared/catalog/access';

const ROLE = 'arn:aws:iam::123456789012:role/deliveries';
const REFUSING = 'arn:aws:iam::123456789012:role/refusing';
const queueUrl = 'https://sqs.eu-west-1.amazonaws.com/123456789012/orders';
const request = {
  body: '{"text":"hi"}',
  headers: {
    'webhook-id': 'msg_1',
    'webhook-timestamp': '1700000000',
    'webhook-signature': 'v1,abc',
    traceparent: 't',
  },
};
const identity = { deliveryId: 'msg_1', attempt: 2 };

let sent: { input: Record<string, unknown>; config: Record<string, unknown> }[];
let sqsAnswer: () => Promise<unknown>;

const awsError = (name: string, status: number, message = name) =>
  Object.assign(new Error(message), { name, $metadata: { httpStatusCode: status } });

async function load() {
  vi.resetModules();
  return import('../../../shared/webhooks/aws/sqs');
}

describe('the SQS destination transport', () => {
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
    sqsAnswer = async () => ({ MessageId: 'm-1' });
    vi.spyOn(SQSClient.prototype, 'send').mockImplementation(async function (
      this: SQSClient,
      command: SendMessageCommand,
    ) {
      sent.push({ input: command.input as never, config: this.config as never });
      return sqsAnswer();
    } as never);
  });
  afterEach(() => {
    vi.unstubAllEnvs();
    vi.restoreAllMocks();
  });

  const destination = (url = queueUrl, roleArn = ROLE) => ({ type: 'sqs' as const, queueUrl: url, roleArn });
  const webhook = { id: 7, externalId: 'ext-1' };

  it('sends the body with the signature headers as String attributes; a success is 200 with the message id', async () => {
    const { sendToQueue } = await load();
    const outcome = await sendToQueue(destination(), webhook, request, identity);
    expect(outcome).toMatchObject({
      statusCode: 200,
      outcomeClass: 'delivered',
      delivered: true,
      response: { body: '{"messageId":"m-1"}', json: true },
    });
    expect(sent[0]?.input).toEqual({
      QueueUrl: queueUrl,
      MessageBody: request.body,
      MessageAttributes: {
        'webhook-id': { DataType: 'String', StringValue: 'msg_1' },
        'webhook-timestamp': { DataType: 'String', StringValue: '1700000000' },
        'webhook-signature': { DataType: 'String', StringValue: 'v1,abc' },
      },
    });
    const config = sent[0]?.config ?? {};
    expect(config.useQueueUrlAsEndpoint).toBe(false);
    expect(await (config.maxAttempts as () => Promise<number>)()).toBe(1);
  });

  it('gives a FIFO queue the delivery id as group and a deduplication id of the attempt', async () => {
    const { deduplicationId, sendToQueue } = await load();
    await sendToQueue(destination(`${queueUrl}.fifo`), webhook, request, identity);
    expect(sent[0]?.input).toMatchObject({
      MessageGroupId: 'msg_1',
      MessageDeduplicationId: deduplicationId(identity),
    });
  });

  it('records a missing queue as gone, with AWS’s status, code and message', async () => {
    const { sendToQueue } = await load();
    sqsAnswer = async () => {
      throw awsError('QueueDoesNotExist', 400, 'The specified queue does not exist.');
    };
    const outcome = await sendToQueue(destination(), webhook, request, identity);
    expect(outcome).toMatchObject({
      statusCode: 400,
      outcomeClass: 'gone',
      delivered: false,
      response: {
        body: { code: 'QueueDoesNotExist', connect: false, message: 'The specified queue does not exist.' },
      },
    });
  });

  it.each([
    ['AccessDenied', 403],
    ['ThrottlingException', 400],
    ['InternalError', 500],
  ])('records %s as a failed attempt (retried, counted in health)', async (name, status) => {
    const { sendToQueue } = await load();
    sqsAnswer = async () => {
      throw awsError(name, status);
    };
    const outcome = await sendToQueue(destination(), webhook, request, identity);
    expect(outcome).toMatchObject({
      statusCode: status,
      outcomeClass: 'failed',
      response: { body: { code: name } },
    });
  });

  it('records an error without an HTTP answer as 500', async () => {
    const { sendToQueue } = await load();
    sqsAnswer = async () => {
      throw Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    };
    const outcome = await sendToQueue(destination(), webhook, request, identity);
    expect(outcome).toMatchObject({
      statusCode: 500,
      outcomeClass: 'failed',
      response: { body: { code: 'ECONNREFUSED', connect: true } },
    });
  });

  it('records a role that refuses to be assumed as a failed attempt with STS’s code, and sends nothing', async () => {
    const { sendToQueue } = await load();
    const outcome = await sendToQueue(destination(queueUrl, REFUSING), webhook, request, identity);
    expect(outcome).toMatchObject({
      statusCode: 403,
      outcomeClass: 'failed',
      response: { body: { code: 'AccessDenied', message: expect.stringMatching(/^AssumeRole refused: /) } },
    });
    expect(sent).toEqual([]);
  });
});
