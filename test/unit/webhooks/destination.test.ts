/** The shapes and rules of a webhook's AWS destination (issue 40, step 4; shared/webhooks/destination.ts). */
import { describe, expect, it } from 'vitest';
import { describeIssues } from '../../../shared/validation';
import { deduplicationId } from '../../../shared/webhooks/aws/sqs';
import { DestinationSchema, destinationProblem, parseQueueUrl } from '../../../shared/webhooks/destination';
import { WebhookInputSchema, WebhookPatchSchema } from '../../../shared/webhooks/model';
import { targetKey, targetLabel } from '../../../shared/webhooks/target';

const PRINCIPAL = 'arn:aws:iam::000000000000:role/causeway-local-webhook-delivery';
const queueUrl = 'https://sqs.eu-west-1.amazonaws.com/123456789012/orders';
const roleArn = 'arn:aws:iam::123456789012:role/causeway/deliveries';
const sqs = { type: 'sqs' as const, queueUrl, roleArn };

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

  it('takes only SQS (SNS and EventBridge come later) and no other field', () => {
    expect(problemOf({ type: 'sns', topicArn: 'arn:aws:sns:eu-west-1:123456789012:t', roleArn })).toMatch(
      /type/,
    );
    expect(problemOf({ ...sqs, endpoint: 'https://example.com' })).toMatch(/endpoint/);
  });
});

describe('a destination’s rules across fields', () => {
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

  it('parses the queue: region, account, ARN, FIFO', () => {
    expect(parseQueueUrl(`${queueUrl}.fifo`)).toEqual({
      region: 'eu-west-1',
      account: '123456789012',
      name: 'orders.fifo',
      arn: 'arn:aws:sqs:eu-west-1:123456789012:orders.fifo',
      fifo: true,
    });
  });

  it('is the target the per-URL limit counts and the records show', () => {
    expect(targetKey({ destination: sqs })).toBe('sqs:arn:aws:sqs:eu-west-1:123456789012:orders');
    expect(targetKey({ destination: { ...sqs, roleArn: 'arn:aws:iam::123456789012:role/other' } })).toBe(
      targetKey({ destination: sqs }),
    );
    expect(targetLabel({ destination: sqs })).toBe(queueUrl);
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
