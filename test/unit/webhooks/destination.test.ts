/** The shapes and rules of a webhook's AWS destination (issue 40, steps 4–5; shared/webhooks/destination.ts). */
import { describe, expect, it } from 'vitest';
import { describeIssues } from '../../../shared/validation';
import { deduplicationId } from '../../../shared/webhooks/aws/send';
import {
  DestinationSchema,
  destinationProblem,
  destinationResource,
  sameDestination,
} from '../../../shared/webhooks/destination';
import { WebhookInputSchema, WebhookPatchSchema } from '../../../shared/webhooks/model';
import { targetKey, targetLabel } from '../../../shared/webhooks/target';

const PRINCIPAL = 'arn:aws:iam::000000000000:role/causeway-local-webhook-delivery';
const queueUrl = 'https://sqs.eu-west-1.amazonaws.com/123456789012/orders';
const roleArn = 'arn:aws:iam::123456789012:role/causeway/deliveries';
const sqs = { type: 'sqs' as const, queueUrl, roleArn };
const topicArn = 'arn:aws:sns:eu-west-1:123456789012:orders';
const sns = { type: 'sns' as const, topicArn, roleArn };
const eventBusArn = 'arn:aws:events:eu-west-1:123456789012:event-bus/orders';
const bus = { type: 'eventbridge' as const, eventBusArn, roleArn };

const problemOf = (raw: unknown): string | undefined => {
  const parsed = DestinationSchema.safeParse(raw);
  return parsed.success ? undefined : describeIssues(parsed.error.issues);
};

describe('a destination’s shape', () => {
  it('takes an SQS queue URL and a role of one account', () => {
    expect(problemOf(sqs)).toBeUndefined();
    expect(problemOf({ ...sqs, queueUrl: `${queueUrl}.fifo` })).toBeUndefined();
    expect(
      problemOf({ ...sqs, queueUrl: 'https://sqs.ap-southeast-2.amazonaws.com/123456789012/a_b-C9' }),
    ).toBeUndefined();
    expect(problemOf({ ...sqs, roleArn: 'arn:aws:iam::123456789012:role/name+=,.@-x' })).toBeUndefined();
  });

  it.each([
    ['http://sqs.eu-west-1.amazonaws.com/123456789012/orders', 'http'],
    ['https://sqs.eu-west-1.amazonaws.com.evil.example/123456789012/orders', 'another host'],
    ['https://evil.example/123456789012/orders', 'not SQS'],
    ['https://sqs.eu-west-1.amazonaws.com/12345678901/orders', '11 digits'],
    ['https://sqs.eu-west-1.amazonaws.com/123456789012/or.ders', 'a dot'],
    ['https://sqs.eu-west-1.amazonaws.com/123456789012/orders?x=1', 'a query'],
    ['https://sqs.eu-west-1.amazonaws.com/123456789012/orders/', 'a trailing slash'],
    [`https://sqs.eu-west-1.amazonaws.com/123456789012/${'q'.repeat(81)}`, 'a name over 80'],
    ['https://sqs.eu-west-1.amazonaws.com:8443/123456789012/orders', 'a port'],
    ['https://user@sqs.eu-west-1.amazonaws.com/123456789012/orders', 'userinfo'],
  ])('refuses the queue URL %s (%s), naming queueUrl', (url) => {
    expect(problemOf({ ...sqs, queueUrl: url })).toMatch(/^queueUrl: must be an SQS queue URL/);
  });

  it.each([
    'arn:aws:iam::123456789012:user/deliveries',
    'arn:aws:iam::12345678901:role/deliveries',
    'arn:aws:sts::123456789012:role/deliveries',
    'arn:aws:iam::123456789012:role/',
    'arn:aws:iam::123456789012:role/a b',
  ])('refuses the role ARN %s, naming roleArn', (arn) => {
    expect(problemOf({ ...sqs, roleArn: arn })).toMatch(/^roleArn: must be an IAM role ARN/);
  });

  it('takes only sqs, sns and eventbridge, and no other field', () => {
    expect(
      problemOf({ type: 'kinesis', streamArn: 'arn:aws:kinesis:eu-west-1:123456789012:stream/s', roleArn }),
    ).toMatch(/^type: must be "sqs", "sns" or "eventbridge"/);
    expect(problemOf({ ...sqs, endpoint: 'https://example.com' })).toMatch(/endpoint/);
    expect(problemOf({ ...sns, queueUrl })).toMatch(/queueUrl/);
    expect(problemOf({ ...bus, endpoint: 'https://example.com' })).toMatch(/endpoint/);
  });

  it('takes an SNS topic ARN (a FIFO topic’s too)', () => {
    expect(problemOf(sns)).toBeUndefined();
    expect(problemOf({ ...sns, topicArn: `${topicArn}.fifo` })).toBeUndefined();
    expect(
      problemOf({ ...sns, topicArn: `arn:aws:sns:eu-west-1:123456789012:${'t'.repeat(256)}` }),
    ).toBeUndefined();
  });

  it.each([
    ['arn:aws:sns:eu-west-1:123456789012:', 'no name'],
    ['arn:aws:sns:eu-west-1:12345678901:orders', '11 digits'],
    ['arn:aws:sns::123456789012:orders', 'no region'],
    ['arn:aws:sqs:eu-west-1:123456789012:orders', 'a queue'],
    ['arn:aws-cn:sns:cn-north-1:123456789012:orders', 'another partition'],
    ['arn:aws:sns:eu-west-1:123456789012:or.ders', 'a dot'],
    ['arn:aws:sns:eu-west-1:123456789012:orders:sub-id', 'a subscription'],
    [`arn:aws:sns:eu-west-1:123456789012:${'t'.repeat(257)}`, 'a name over 256'],
    ['https://sns.eu-west-1.amazonaws.com/123456789012/orders', 'a URL'],
  ])('refuses the topic ARN %s (%s), naming topicArn', (arn) => {
    expect(problemOf({ ...sns, topicArn: arn })).toMatch(/^topicArn: must be an SNS topic ARN/);
  });

  it('takes an EventBridge bus ARN, with an optional source and detail type', () => {
    expect(problemOf(bus)).toBeUndefined();
    expect(
      problemOf({ ...bus, eventBusArn: 'arn:aws:events:eu-west-1:123456789012:event-bus/default' }),
    ).toBeUndefined();
    expect(problemOf({ ...bus, source: 'com.example.orders', detailType: 'Order placed' })).toBeUndefined();
  });

  it.each([
    ['arn:aws:events:eu-west-1:123456789012:rule/orders', 'a rule'],
    ['arn:aws:events:eu-west-1:123456789012:event-bus/', 'no name'],
    ['arn:aws:events:eu-west-1:123456789012:event-bus/a b', 'a space'],
    ['arn:aws:events:eu-west-1:123456789012:event-bus/aws.partner/x', 'a partner bus'],
    ['arn:aws:events:eu-west-1:123456789012:orders', 'no event-bus/'],
    [`arn:aws:events:eu-west-1:123456789012:event-bus/${'b'.repeat(257)}`, 'a name over 256'],
  ])('refuses the bus ARN %s (%s), naming eventBusArn', (arn) => {
    expect(problemOf({ ...bus, eventBusArn: arn })).toMatch(
      /^eventBusArn: must be an EventBridge event bus ARN/,
    );
  });

  it.each([
    ['source', 'aws.events', /^source: .*not start with `aws\.`/],
    ['source', '', /^source: must be/],
    ['source', 'a b', /^source: must be/],
    ['source', 's'.repeat(257), /^source: must be/],
    ['detailType', '', /^detailType: must be/],
    ['detailType', ' padded', /^detailType: must be/],
    ['detailType', 'd'.repeat(129), /^detailType: must be/],
    ['detailType', 'tab\there', /^detailType: must be/],
  ])('refuses the %s %j', (field, value, message) => {
    expect(problemOf({ ...bus, [field]: value })).toMatch(message);
  });
});

describe('a destination’s rules across fields', () => {
  it('wants the role in the topic’s and the bus’s account too, naming their field for our own account', () => {
    const other = 'arn:aws:iam::210987654321:role/r';
    expect(destinationProblem(sns, PRINCIPAL)).toBeUndefined();
    expect(destinationProblem(bus, PRINCIPAL)).toBeUndefined();
    expect(destinationProblem({ ...sns, roleArn: other }, PRINCIPAL)?.[1]).toMatch(/topic's account/);
    expect(destinationProblem({ ...bus, roleArn: other }, PRINCIPAL)?.[1]).toMatch(/event bus's account/);
    expect(
      destinationProblem({ ...sns, topicArn: 'arn:aws:sns:us-east-1:000000000000:t' }, PRINCIPAL)?.[0],
    ).toBe('topicArn');
    expect(
      destinationProblem(
        { ...bus, eventBusArn: 'arn:aws:events:us-east-1:000000000000:event-bus/b' },
        PRINCIPAL,
      )?.[0],
    ).toBe('eventBusArn');
  });

  it('wants the role in the queue’s account', () => {
    expect(destinationProblem(sqs, PRINCIPAL)).toBeUndefined();
    expect(destinationProblem({ ...sqs, roleArn: 'arn:aws:iam::210987654321:role/r' }, PRINCIPAL)).toEqual([
      'roleArn',
      expect.stringMatching(/queue's account \(123456789012\)/),
    ]);
  });

  it("refuses the service's own account for the queue and the role", () => {
    const own = { ...sqs, queueUrl: 'https://sqs.us-east-1.amazonaws.com/000000000000/deliveries' };
    expect(destinationProblem(own, PRINCIPAL)?.[0]).toBe('queueUrl');
    expect(destinationProblem({ ...sqs, roleArn: 'arn:aws:iam::000000000000:role/r' }, PRINCIPAL)?.[0]).toBe(
      'roleArn',
    );
  });

  it('names the queue, topic or bus: region, account, ARN, FIFO', () => {
    expect(destinationResource({ ...sqs, queueUrl: `${queueUrl}.fifo` })).toMatchObject({
      field: 'queueUrl',
      region: 'eu-west-1',
      account: '123456789012',
      name: 'orders.fifo',
      arn: 'arn:aws:sqs:eu-west-1:123456789012:orders.fifo',
      fifo: true,
    });
    expect(destinationResource({ ...sns, topicArn: `${topicArn}.fifo` })).toMatchObject({
      field: 'topicArn',
      region: 'eu-west-1',
      name: 'orders.fifo',
      fifo: true,
    });
    expect(destinationResource(bus)).toMatchObject({ field: 'eventBusArn', name: 'orders', fifo: false });
  });

  it('is the target the per-URL limit counts and the records show', () => {
    expect(targetKey({ destination: sqs })).toBe('sqs:arn:aws:sqs:eu-west-1:123456789012:orders');
    expect(targetKey({ destination: { ...sqs, roleArn: 'arn:aws:iam::123456789012:role/other' } })).toBe(
      targetKey({ destination: sqs }),
    );
    expect(targetLabel({ destination: sqs })).toBe(queueUrl);
    expect(targetKey({ destination: sns })).toBe(`sns:${topicArn}`);
    expect(targetLabel({ destination: sns })).toBe(topicArn);
    expect(targetKey({ destination: { ...bus, source: 'x' } })).toBe(`events:${eventBusArn}`);
    expect(targetLabel({ destination: bus })).toBe(eventBusArn);
  });

  it('is the same destination only when every field is', () => {
    expect(sameDestination(bus, { ...bus })).toBe(true);
    expect(sameDestination(bus, { ...bus, source: 'causeway.webhooks' })).toBe(false);
    expect(sameDestination(sns, { ...sns, roleArn: 'arn:aws:iam::123456789012:role/other' })).toBe(false);
    expect(sameDestination(sqs, undefined)).toBe(false);
  });
});

describe('a webhook’s one target', () => {
  const base = { name: 'w', global: false, notificationType: ['userCreated'], actionType: 'triggered' };

  it('is a url or a destination on create, never both, never neither', () => {
    expect(WebhookInputSchema.safeParse({ ...base, destination: sqs }).success).toBe(true);
    expect(WebhookInputSchema.safeParse({ ...base, url: 'https://example.com/h' }).success).toBe(true);
    const both = WebhookInputSchema.safeParse({ ...base, url: 'https://example.com/h', destination: sqs });
    expect(both.success || describeIssues(both.error.issues)).toBe(
      'destination: send either url or destination, not both',
    );
    const neither = WebhookInputSchema.safeParse(base);
    expect(neither.success || describeIssues(neither.error.issues)).toMatch(/^url: required/);
  });

  it('is one of them in a PATCH', () => {
    expect(WebhookPatchSchema.safeParse({ destination: sqs }).success).toBe(true);
    const both = WebhookPatchSchema.safeParse({ url: 'https://example.com/h', destination: sqs });
    expect(both.success || describeIssues(both.error.issues)).toMatch(
      /^destination: send either url or destination/,
    );
  });
});

describe('a FIFO message’s deduplication id', () => {
  const attempt = { deliveryId: 'd1', attempt: 1 };
  it('is the same for the same attempt and differs for a retry, a manual retry and a recover re-send', () => {
    const ids = [
      deduplicationId(attempt),
      deduplicationId({ ...attempt, attempt: 2 }),
      deduplicationId({ ...attempt, retryOf: 7 }),
      deduplicationId({ ...attempt, retryOf: 7, recoverJob: 'rj_1' }),
      deduplicationId({ ...attempt, retryOf: 8, recoverJob: 'rj_1' }),
    ];
    expect(deduplicationId(attempt)).toBe(ids[0]);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids[0]).toMatch(/^[0-9a-f]{64}$/);
  });
});
