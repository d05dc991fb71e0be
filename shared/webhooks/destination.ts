/**
 * A webhook's AWS destination (issue 40, ADR 0019): where its deliveries go instead of a URL —
 * an SQS queue, an SNS topic or an EventBridge event bus in the customer's own account, sent to
 * through a role of theirs that trusts the stage's delivery principal. The rules only (no I/O):
 * the shapes, parsed once by the schema (they drive validation, types and the OpenAPI document),
 * what a destination names (`destinationResource`), and the checks across fields.
 *
 * The shapes are AWS's, strictly: a queue URL is `https://sqs.<region>.amazonaws.com/<account>/<name>`,
 * a topic `arn:aws:sns:<region>:<account>:<name>`, a bus `arn:aws:events:<region>:<account>:event-bus/<name>`,
 * and nothing else, so the endpoint a delivery reaches is always AWS's regional one for the
 * service (the local stage maps it to its sandbox account), never a host the caller wrote. This
 * is why a destination never goes through the SSRF guard: there is no caller-chosen host to guard.
 */
import * as z from 'zod/mini';
import { described, withMeta } from '../schema-meta';

/** AWS's commercial regions as they appear in endpoints and ARNs (`us-east-1`, `ap-southeast-2`). */
const REGION = '[a-z]{2}(?:-[a-z]+)+-\\d{1,2}';
/** A queue's name as SQS allows it: 1–80 letters, digits, `-`, `_`; a FIFO queue's ends in `.fifo`. */
const QUEUE_NAME = '[A-Za-z0-9_-]{1,80}';
/** A topic's name as SNS allows it: 1–256 letters, digits, `-`, `_`, `.fifo` (counted) for a FIFO topic. */
const TOPIC_NAME = '[A-Za-z0-9_-]{1,251}\\.fifo|[A-Za-z0-9_-]{1,256}';
/** An event bus's name as EventBridge allows it for the buses of an account: 1–256 of `A-Za-z0-9._-`. */
const BUS_NAME = '[A-Za-z0-9._-]{1,256}';

const QUEUE_URL = new RegExp(
  `^https://sqs\\.(${REGION})\\.amazonaws\\.com/(\\d{12})/(${QUEUE_NAME}(?:\\.fifo)?)$`,
);
const TOPIC_ARN = new RegExp(`^arn:aws:sns:(${REGION}):(\\d{12}):(${TOPIC_NAME})$`);
const BUS_ARN = new RegExp(`^arn:aws:events:(${REGION}):(\\d{12}):event-bus/(${BUS_NAME})$`);
/** An IAM role ARN: `arn:aws:iam::<account>:role/<path/><name>` (IAM's path and name characters). */
const ROLE_ARN = /^arn:aws:iam::(\d{12}):role\/((?:[\w+=,.@-]{1,512}\/)*)([\w+=,.@-]{1,64})$/;
/**
 * An event's source: 1–256 characters of a reverse-DNS-like name. EventBridge refuses an entry
 * whose source starts with `aws.` (AWS's own), so that is refused here rather than at each send.
 */
const EVENT_SOURCE = /^(?!aws\.)[A-Za-z0-9][A-Za-z0-9._/-]{0,255}$/;
/** An event's detail type: 1–128 printable characters, no leading or trailing space. */
const DETAIL_TYPE = /^[\x21-\x7e](?:[\x20-\x7e]{0,126}[\x21-\x7e])?$/;

/** The source of an EventBridge destination's events when it names none. */
export const DEFAULT_EVENT_SOURCE = 'causeway.webhooks';

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

const SnsDestinationSchema = withMeta(
  z.strictObject({
    type: z.literal('sns'),
    topicArn: described(
      z
        .string()
        .check(
          z.regex(
            TOPIC_ARN,
            'must be an SNS topic ARN, arn:aws:sns:<region>:<12-digit account>:<topic name>',
          ),
        ),
      'the topic: arn:aws:sns:<region>:<account>:<name> (`.fifo` for a FIFO topic)',
    ),
    roleArn,
  }),
  {
    id: 'SnsDestination',
    description:
      "An SNS topic in the customer's AWS account: each delivery is one Publish, its message the JSON an HTTPS receiver gets, with `webhook-id`, `webhook-timestamp` and `webhook-signature` as message attributes (an SQS subscription keeps them with raw message delivery; docs/webhooks.md).",
  },
);

const EventBridgeDestinationSchema = withMeta(
  z.strictObject({
    type: z.literal('eventbridge'),
    eventBusArn: described(
      z
        .string()
        .check(
          z.regex(
            BUS_ARN,
            'must be an EventBridge event bus ARN, arn:aws:events:<region>:<12-digit account>:event-bus/<name>',
          ),
        ),
      'the event bus: arn:aws:events:<region>:<account>:event-bus/<name> (a bus of its own is best: docs/webhooks.md)',
    ),
    roleArn,
    source: described(
      z.optional(
        z
          .string()
          .check(
            z.regex(
              EVENT_SOURCE,
              'must be 1–256 letters, digits, `.`, `_`, `-` or `/`, starting with a letter or digit, and not start with `aws.`',
            ),
          ),
      ),
      `the events' \`source\` (default \`${DEFAULT_EVENT_SOURCE}\`)`,
    ),
    detailType: described(
      z.optional(
        z
          .string()
          .check(
            z.regex(
              DETAIL_TYPE,
              'must be 1–128 printable ASCII characters, without leading or trailing spaces',
            ),
          ),
      ),
      "the events' `detail-type` (default: the notification type)",
    ),
  }),
  {
    id: 'EventBridgeDestination',
    description:
      "An EventBridge event bus in the customer's AWS account: each delivery is one PutEvents entry whose `detail` is the JSON an HTTPS receiver gets and whose `resources` holds the delivery id (the `webhook-id`). EventBridge re-serialises `detail`, so no signature is sent: the bus's IAM is what a receiver relies on (docs/webhooks.md).",
  },
);

/** A webhook's destination, by `type`. */
export const DestinationSchema = withMeta(
  z.discriminatedUnion('type', [SqsDestinationSchema, SnsDestinationSchema, EventBridgeDestinationSchema], {
    error: (issue) => (issue.code === 'invalid_union' ? 'must be "sqs", "sns" or "eventbridge"' : undefined),
  }),
  {
    id: 'WebhookDestination',
    description:
      'Where deliveries go instead of a URL: a queue, topic or event bus in the customer’s AWS account, reached by assuming their role (ADR 0019).',
  },
);
export type Destination = z.output<typeof DestinationSchema>;
export type SqsDestination = Extract<Destination, { type: 'sqs' }>;
export type SnsDestination = Extract<Destination, { type: 'sns' }>;
export type EventBridgeDestination = Extract<Destination, { type: 'eventbridge' }>;

/** What a destination names, and how the rest of the service refers to it. */
export interface DestinationResource {
  /** The field under `destination` that names it. */
  field: 'queueUrl' | 'topicArn' | 'eventBusArn';
  /** What it is, in messages ("the queue's account"). */
  kind: 'queue' | 'topic' | 'event bus';
  region: string;
  account: string;
  name: string;
  arn: string;
  /** A FIFO queue or topic (`.fifo`). */
  fifo: boolean;
  /** The identity the per-URL limit counts: `sqs:<queueArn>`, `sns:<topicArn>`, `events:<busArn>`. */
  key: string;
  /** What records and messages show: the queue URL, the topic's or the bus's ARN. */
  label: string;
}

/** Per kind: the field naming the resource, what it is, its shape, and its key's prefix. */
const RESOURCE_OF = {
  sqs: { field: 'queueUrl', kind: 'queue', pattern: QUEUE_URL, keyPrefix: 'sqs' },
  sns: { field: 'topicArn', kind: 'topic', pattern: TOPIC_ARN, keyPrefix: 'sns' },
  eventbridge: { field: 'eventBusArn', kind: 'event bus', pattern: BUS_ARN, keyPrefix: 'events' },
} as const;

/** The resource a (schema-valid) destination names. */
export function destinationResource(destination: Destination): DestinationResource {
  const { field, kind, pattern, keyPrefix } = RESOURCE_OF[destination.type];
  const label = (destination as unknown as Record<typeof field, string>)[field];
  const match = pattern.exec(label);
  if (!match) throw new Error(`not an AWS ${kind}: ${label}`);
  const [, region = '', account = '', name = ''] = match;
  // A queue URL is not an ARN; a topic's and a bus's field is.
  const arn = destination.type === 'sqs' ? `arn:aws:sqs:${region}:${account}:${name}` : label;
  const fifo = destination.type !== 'eventbridge' && name.endsWith('.fifo');
  return { field, kind, region, account, name, arn, fifo, key: `${keyPrefix}:${arn}`, label };
}

/** The account of a (schema-valid) role ARN. */
function roleAccount(arn: string): string {
  return ROLE_ARN.exec(arn)?.[1] ?? '';
}

/** The account of an IAM ARN (`arn:aws:iam::<account>:…`), if it is one. */
const accountOfArn = (arn: string): string | undefined => /^arn:aws[\w-]*:iam::(\d{12}):/.exec(arn)?.[1];

/**
 * The first cross-field rule a (schema-valid) destination breaks, as `[field, message]` (the
 * field under `destination`), or undefined: the role must be in the resource's account, and
 * neither may be in the service's own account (the account of `principalArn`, the delivery principal).
 */
export function destinationProblem(
  destination: Destination,
  principalArn: string,
): [field: DestinationResource['field'] | 'roleArn', message: string] | undefined {
  const resource = destinationResource(destination);
  const own = accountOfArn(principalArn);
  if (resource.account === own)
    return [
      resource.field,
      "is in the service's own AWS account; a destination must be in the customer's account",
    ];
  const role = roleAccount(destination.roleArn);
  if (role === own)
    return ['roleArn', "is in the service's own AWS account; the role must be in the customer's account"];
  if (role !== resource.account)
    return [
      'roleArn',
      `must be a role of the ${resource.kind}'s account (${resource.account}), not of ${role}`,
    ];
  return undefined;
}

/** Whether two destinations are the same (every field equal, an absent optional field included). */
export function sameDestination(a: Destination | undefined, b: Destination | undefined): boolean {
  if (a === undefined || b === undefined) return false;
  const fields = a as Record<string, unknown>;
  const others = b as Record<string, unknown>;
  const names = new Set([...Object.keys(fields), ...Object.keys(others)]);
  return [...names].every((name) => fields[name] === others[name]);
}
