/**
 * What the three AWS destination transports share (ADR 0019): SQS (./sqs.ts), SNS (./sns.ts) and
 * EventBridge (./eventbridge.ts) each make one call per attempt, and this module makes the rest
 * the same for all of them:
 * - the customer's clients, one per (service, region, role, ExternalId, webhook), each with the
 *   customer's session as its only credentials (./credentials.ts), AWS's regional endpoint (the
 *   sandbox account's front on the local stage; never `AWS_ENDPOINT_URL_*`), one try and the
 *   webhook timeouts; at most 500 kept, the oldest dropped first;
 * - the role assumed before the call, so a refusal is told apart from the call's own errors;
 * - the outcome in the history's form. A success is 200 with AWS's id (`{"messageId"}`,
 *   `{"eventId"}`). A failure is AWS's HTTP status (500 when none came back) with
 *   `{code, connect, message}`: `gone` when the code says the resource no longer exists (each
 *   transport names its codes), else `failed` — access denied, throttling, a KMS key, a 5xx, a
 *   role that refuses to be assumed (STS's code), no answer at all;
 * - the signature headers as String message attributes (SQS and SNS), and a FIFO message's
 *   deduplication id.
 */
import { createHash } from 'node:crypto';
import { type Destination, type DestinationResource, destinationResource } from '../destination';
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

/** A signed request as a destination receives it: the body, and the headers an HTTPS receiver gets. */
export interface DestinationRequest {
  body: string;
  headers: Record<string, string>;
}

/** The webhook fields a send reads: its id (the session name) and the ExternalId checked. */
export interface SendingWebhook {
  id: number;
  externalId?: string;
}

/** The headers carried as message attributes (SQS and SNS). */
const ATTRIBUTE_HEADERS = ['webhook-id', 'webhook-timestamp', 'webhook-signature'] as const;

/** Error codes met before any answer came back (the history's `connect: true`). */
const NO_CONNECTION = /^(ECONNREFUSED|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH|ECONNRESET)$/;

/** Clients kept at most (one per customer session and service); the oldest is dropped first. */
const MAX_CLIENTS = 500;
const clients = new Map<string, { destroy(): void }>();

/** What every customer client is built with. */
interface CustomerClientConfig {
  region: string;
  endpoint: string;
  credentials: () => ReturnType<typeof customerCredentials>;
  maxAttempts: 1;
  requestHandler: { requestTimeout: number; connectionTimeout: number };
}

/** The signature headers as String message attributes (SQS's and SNS's shape alike). */
function signatureAttributes(
  headers: Record<string, string>,
): Record<string, { DataType: 'String'; StringValue: string }> {
  const attributes: Record<string, { DataType: 'String'; StringValue: string }> = {};
  for (const name of ATTRIBUTE_HEADERS) {
    const value = headers[name];
    if (value !== undefined) attributes[name] = { DataType: 'String', StringValue: value };
  }
  return attributes;
}

/**
 * What a message carries beside its body, in SQS's and SNS's shape alike: the signature headers
 * as attributes, and for a FIFO queue or topic the attempt's deduplication id and a group: an
 * ordered webhook's ordering key (the customer's queue keeps the key's order, ADR 0020), else the
 * delivery id.
 */
export function messageFields(request: DestinationRequest, fifo: boolean, identity: SendIdentity) {
  return {
    MessageAttributes: signatureAttributes(request.headers),
    ...(fifo
      ? {
          MessageGroupId: identity.orderingKey ?? identity.deliveryId,
          MessageDeduplicationId: deduplicationId(identity),
        }
      : {}),
  };
}

/** A FIFO message's deduplication id: unique per attempt, manual retry and recover re-send. */
export function deduplicationId(
  identity: Pick<SendIdentity, 'deliveryId' | 'attempt' | 'retryOf' | 'recoverJob'>,
): string {
  const parts = [identity.deliveryId, identity.attempt, identity.retryOf ?? '', identity.recoverJob ?? ''];
  return createHash('sha256').update(parts.join('\n')).digest('hex');
}

/** The client of `service` for this customer session, made on first use by `make`. */
function customerClient<C extends { destroy(): void }>(
  service: AwsService<C>['name'],
  role: CustomerRole,
  region: string,
  make: (config: CustomerClientConfig) => C,
): C {
  const key = `${service}\n${region}\n${role.roleArn}\n${role.externalId}\n${role.webhookId}`;
  let client = clients.get(key) as C | undefined;
  if (client === undefined) {
    client = make({
      region,
      endpoint: awsEndpoint(service, region),
      credentials: () => customerCredentials(role),
      ...clientLimits(),
    });
    clients.set(key, client);
    if (clients.size > MAX_CLIENTS) {
      const [oldestKey, oldest] = clients.entries().next().value ?? [];
      if (oldestKey !== undefined) clients.delete(oldestKey);
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

/** A success: 200 with AWS's id of what was sent. */
function delivered(answer: Record<string, string | undefined>, startedAt: number): AttemptOutcome {
  return outcome(200, { body: JSON.stringify(answer), json: true }, 'delivered', startedAt);
}

/** A failure with this status, AWS's code and message; `gone` when the resource no longer exists. */
function failed(
  statusCode: number,
  failure: { code: string; message: string; connect?: boolean },
  outcomeClass: 'failed' | 'gone',
  startedAt: number,
): AttemptOutcome {
  const body = {
    code: failure.code,
    connect: failure.connect ?? false,
    message: failure.message.slice(0, 1000),
  };
  const result = outcome(statusCode, { body }, outcomeClass, startedAt);
  result.failureCode = failure.code;
  return result;
}

/** The history form of an AWS (or STS) error: `gone` when its code or name is one of `goneCodes`. */
function errorOutcome(error: unknown, goneCodes: ReadonlySet<string>, startedAt: number): AttemptOutcome {
  if (error instanceof AssumeRoleRefused)
    return failed(
      error.httpStatusCode ?? 500,
      { code: error.code, message: `AssumeRole refused: ${error.message}` },
      'failed',
      startedAt,
    );
  const e = error as {
    name?: string;
    Code?: string;
    code?: string;
    message?: string;
    $metadata?: { httpStatusCode?: number };
  };
  const code = e.Code ?? (typeof e.code === 'string' ? e.code : e.name) ?? 'Error';
  const status = e.$metadata?.httpStatusCode;
  const gone = goneCodes.has(code) || goneCodes.has(e.name ?? '');
  return failed(
    status ?? 500,
    { code, message: String(e.message ?? error), connect: status === undefined && NO_CONNECTION.test(code) },
    gone ? 'gone' : 'failed',
    startedAt,
  );
}

/** A customer service as a transport uses it: its endpoint's name, its client, its "gone" codes. */
export interface AwsService<C extends { destroy(): void }> {
  name: 'sqs' | 'sns' | 'events';
  client: (config: CustomerClientConfig) => C;
  /** Error codes (or SDK error names) meaning the resource no longer exists. */
  goneCodes: ReadonlySet<string>;
}

/**
 * What a transport's call came to: AWS's id of what it sent, or a refusal AWS reported inside a
 * success (an EventBridge entry), with the status it is recorded with.
 */
export type CallResult =
  | { sent: Record<string, string | undefined> }
  | { refused: { statusCode: number; code: string; message: string } };

/**
 * One attempt into a destination with the customer's role: `call` makes the AWS call with the
 * customer's client of `service` in the resource's region. The role is assumed first, and every
 * error — a refusal, AWS's, none at all — becomes the attempt's failed (or gone) outcome.
 * Never throws.
 */
export async function sendWithRole<C extends { destroy(): void }>(
  destination: Destination,
  webhook: SendingWebhook,
  service: AwsService<C>,
  call: (client: C, resource: DestinationResource) => Promise<CallResult>,
): Promise<AttemptOutcome> {
  const startedAt = Date.now();
  const role: CustomerRole = {
    roleArn: destination.roleArn,
    externalId: webhook.externalId ?? '',
    webhookId: webhook.id,
  };
  const resource = destinationResource(destination);
  try {
    // Assumed first, so a refusal is told apart from the call's own errors.
    await customerCredentials(role);
    const result = await call(customerClient(service.name, role, resource.region, service.client), resource);
    if ('sent' in result) return delivered(result.sent, startedAt);
    return failed(result.refused.statusCode, result.refused, 'failed', startedAt);
  } catch (error) {
    return errorOutcome(error, service.goneCodes, startedAt);
  }
}
