/**
 * A webhook's AWS destination (issue 40, ADR 0019): where its deliveries go instead of a URL —
 * a queue in the customer's own account, sent to through a role of theirs that trusts the stage's
 * delivery principal. The rules only (no I/O): the shapes, parsed once by the schema (they drive
 * validation, types and the OpenAPI document), and the checks across fields.
 *
 * The shapes are AWS's, strictly: a queue URL is `https://sqs.<region>.amazonaws.com/<account>/<name>`
 * and nothing else, so the endpoint a delivery reaches is always AWS's regional one (the SDK's
 * default; the local stage maps it to its sandbox account), never a host the caller wrote. This
 * is why a destination never goes through the SSRF guard: there is no caller-chosen host to guard.
 *
 * Only SQS today; SNS and EventBridge (step 5) are further members of `DestinationSchema`'s union.
 */
import * as z from 'zod/mini';
import { described, withMeta } from '../schema-meta';

/** AWS's commercial regions as they appear in endpoints and ARNs (`us-east-1`, `ap-southeast-2`). */
const REGION = '[a-z]{2}(?:-[a-z]+)+-\\d{1,2}';
/** A queue's name as SQS allows it: 1–80 letters, digits, `-`, `_`; a FIFO queue's ends in `.fifo`. */
const QUEUE_NAME = '[A-Za-z0-9_-]{1,80}';

const QUEUE_URL = new RegExp(
  `^https://sqs\\.(${REGION})\\.amazonaws\\.com/(\\d{12})/(${QUEUE_NAME}(?:\\.fifo)?)$`,
);
/** An IAM role ARN: `arn:aws:iam::<account>:role/<path/><name>` (IAM's path and name characters). */
const ROLE_ARN = /^arn:aws:iam::(\d{12}):role\/((?:[\w+=,.@-]{1,512}\/)*)([\w+=,.@-]{1,64})$/;

const roleArn = described(
  z
    .string()
    .check(
      z.maxLength(2048),
      z.regex(ROLE_ARN, 'must be an IAM role ARN, arn:aws:iam::<12-digit account>:role/<path/><name>'),
    ),
  "the role in the destination's account that the service assumes to send (its trust policy is GET /webhooks/aws-trust's `trustPolicy`); in the destination's account",
);

const SqsDestinationSchema = withMeta(
  z.strictObject({
    type: z.literal('sqs'),
    queueUrl: described(
      z
        .string()
        .check(
          z.regex(
            QUEUE_URL,
            'must be an SQS queue URL, https://sqs.<region>.amazonaws.com/<12-digit account>/<queue name>',
          ),
        ),
      'the queue, as SQS names it: https://sqs.<region>.amazonaws.com/<account>/<name> (`.fifo` for a FIFO queue)',
    ),
    roleArn,
  }),
  {
    id: 'SqsDestination',
    description:
      "An SQS queue in the customer's AWS account: each delivery is one SendMessage, its body the JSON an HTTPS receiver gets, with `webhook-id`, `webhook-timestamp` and `webhook-signature` as message attributes (docs/webhooks.md).",
  },
);

/** A webhook's destination, by `type` (SNS and EventBridge join the union in step 5). */
export const DestinationSchema = withMeta(
  z.discriminatedUnion('type', [SqsDestinationSchema], {
    error: (issue) =>
      issue.code === 'invalid_union' ? 'type must be "sqs" (SNS and EventBridge come later)' : undefined,
  }),
  {
    id: 'WebhookDestination',
    description:
      'Where deliveries go instead of a URL: a resource in the customer’s AWS account, reached by assuming their role (ADR 0019).',
  },
);
export type Destination = z.output<typeof DestinationSchema>;

/** What a queue URL names. */
export interface QueueName {
  region: string;
  account: string;
  name: string;
  arn: string;
  fifo: boolean;
}

/** The queue a (schema-valid) queue URL names. */
export function parseQueueUrl(queueUrl: string): QueueName {
  const match = QUEUE_URL.exec(queueUrl);
  if (!match) throw new Error('not an SQS queue URL');
  const [, region, account, name] = match as unknown as [string, string, string, string];
  return {
    region,
    account,
    name,
    arn: `arn:aws:sqs:${region}:${account}:${name}`,
    fifo: name.endsWith('.fifo'),
  };
}

/** The account of a (schema-valid) role ARN. */
function roleAccount(arn: string): string {
  return ROLE_ARN.exec(arn)?.[1] ?? '';
}

/** The account of an IAM ARN (`arn:aws:iam::<account>:…`), if it is one. */
const accountOfArn = (arn: string): string | undefined => /^arn:aws[\w-]*:iam::(\d{12}):/.exec(arn)?.[1];

/** The destination's account and region, and the identity the per-URL limit counts. */
export function destinationTarget(destination: Destination): { key: string; label: string; region: string } {
  const queue = parseQueueUrl(destination.queueUrl);
  return { key: `sqs:${queue.arn}`, label: destination.queueUrl, region: queue.region };
}

/**
 * The first cross-field rule a (schema-valid) destination breaks, as `[field, message]` (the
 * field under `destination`), or undefined: the role must be in the queue's account, and neither
 * may be in the service's own account (the account of `principalArn`, the delivery principal).
 */
export function destinationProblem(
  destination: Destination,
  principalArn: string,
): [field: 'queueUrl' | 'roleArn', message: string] | undefined {
  const queue = parseQueueUrl(destination.queueUrl);
  const own = accountOfArn(principalArn);
  if (queue.account === own)
    return [
      'queueUrl',
      "is in the service's own AWS account; a destination must be in the customer's account",
    ];
  const role = roleAccount(destination.roleArn);
  if (role === own)
    return ['roleArn', "is in the service's own AWS account; the role must be in the customer's account"];
  if (role !== queue.account)
    return ['roleArn', `must be a role of the queue's account (${queue.account}), not of ${role}`];
  return undefined;
}

/** Whether two destinations are the same (every field equal). */
export function sameDestination(a: Destination | undefined, b: Destination | undefined): boolean {
  return (
    a !== undefined &&
    b !== undefined &&
    a.type === b.type &&
    a.queueUrl === b.queueUrl &&
    a.roleArn === b.roleArn
  );
}
