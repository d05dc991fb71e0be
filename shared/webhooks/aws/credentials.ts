/**
 * Credentials for a webhook's AWS destination (ADR 0019), by two AssumeRole hops with
 * `@aws-sdk/client-sts`:
 * 1. the function's own credentials assume the stage's delivery principal (the one role
 *    customers trust; its ARN from the function's catalog access);
 * 2. that principal's session assumes the customer's role with the owner's ExternalId,
 *    RoleSessionName `causeway-webhook-<id>` (the customer's CloudTrail names the webhook),
 *    DurationSeconds 3600 (role chaining's cap).
 *
 * Both STS clients are pinned to the service's region (`AWS_REGION`): left to the SDK they would
 * take the customer client's region. Sessions are kept in memory only, never logged or written:
 * the principal's one per container, each customer's per (role, ExternalId, webhook) — the
 * webhook is in the key because the session name names it, so a role shared by several webhooks
 * still shows each one in CloudTrail (one AssumeRole per webhook and hour). A session is used
 * until 5 minutes before it expires. A refusal is kept for 30 s, so a webhook whose role does not
 * trust the principal costs one AssumeRole per 30 s, not one per delivery; the trust check of
 * create and PATCH asks afresh (`fresh`).
 *
 * A trust revoked by the customer keeps working until the cached session ends (≤ 1 hour).
 *
 * On the local stage only, `LOCAL_AWS_DESTINATION_ENDPOINT` (set by infra/local/cloud.ts) is the
 * sandbox account's front, for STS and the customer's services alike; in AWS it is unset and the
 * regional endpoints are used. Customer clients never read `AWS_ENDPOINT_URL_*`: locally those
 * name the service's own emulators.
 */
import { AssumeRoleCommand, STSClient } from '@aws-sdk/client-sts';
import { optionalEnv, requireEnv } from '../../config/env';
import { withoutSdkLogging } from '../../config/sdk-clients';
import { deliveryPrincipalArn } from '../aws-trust';
import { awsDestinationTimeoutMs, connectTimeoutMs } from '../config';

/** The local stage's sandbox account endpoint (every service of it), set by the local cloud only. */
export const LOCAL_DESTINATION_ENDPOINT_ENV = 'LOCAL_AWS_DESTINATION_ENDPOINT';

/** A session is used until this long before it expires. */
const REFRESH_MARGIN_MS = 5 * 60_000;
/** How long a refused AssumeRole is answered from memory. */
const REFUSAL_MS = 30_000;
/** Customer sessions kept at most (the oldest is dropped first). */
const MAX_SESSIONS = 1000;
/** Role chaining's cap, and what is asked. */
const SESSION_SECONDS = 3600;

export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken: string;
  expiration: Date;
}

/** The customer's role refused to be assumed (or STS failed that hop): AWS's code, status and message. */
export class AssumeRoleRefused extends Error {
  override name = 'AssumeRoleRefused';
  constructor(
    readonly code: string,
    readonly httpStatusCode: number | undefined,
    message: string,
  ) {
    super(message);
  }
}

/** The endpoint of an AWS service in a region: the sandbox account's front locally, else AWS's own. */
export function awsEndpoint(service: 'sts' | 'sqs' | 'sns' | 'events', region: string): string {
  const local = optionalEnv(LOCAL_DESTINATION_ENDPOINT_ENV);
  return local !== undefined && local !== '' ? local : `https://${service}.${region}.amazonaws.com`;
}

/** What every client reaching STS or a customer sets: one try, bounded by the AWS destination timeout. */
export function clientLimits(): {
  maxAttempts: 1;
  requestHandler: { requestTimeout: number; connectionTimeout: number };
} {
  const timeoutMs = awsDestinationTimeoutMs();
  return {
    maxAttempts: 1,
    requestHandler: { requestTimeout: timeoutMs, connectionTimeout: connectTimeoutMs(timeoutMs) },
  };
}

type Cached = { credentials: AwsCredentials } | { refused: AssumeRoleRefused; until: number };

const sessions = new Map<string, Cached>();
const pending = new Map<string, Promise<AwsCredentials>>();
let principalSession: AwsCredentials | undefined;
let principalPending: Promise<AwsCredentials> | undefined;
let clients: { principal: STSClient; customer: STSClient } | undefined;

const fresh = (credentials: AwsCredentials | undefined, now: number): credentials is AwsCredentials =>
  credentials !== undefined && credentials.expiration.getTime() - REFRESH_MARGIN_MS > now;

function stsClients(): { principal: STSClient; customer: STSClient } {
  if (clients === undefined) {
    const region = requireEnv('AWS_REGION');
    const common = { region, endpoint: awsEndpoint('sts', region), ...clientLimits() };
    clients = {
      // Hop 1 signs with the function's own credentials (the default chain).
      principal: withoutSdkLogging(new STSClient(common)),
      // Hop 2 signs with the principal's session only.
      customer: withoutSdkLogging(new STSClient({ ...common, credentials: () => principalCredentials() })),
    };
  }
  return clients;
}

function credentialsOf(out: {
  Credentials?: { AccessKeyId?: string; SecretAccessKey?: string; SessionToken?: string; Expiration?: Date };
}): AwsCredentials {
  const c = out.Credentials;
  if (!c?.AccessKeyId || !c.SecretAccessKey || !c.SessionToken)
    throw new Error('AssumeRole answered without credentials');
  return {
    accessKeyId: c.AccessKeyId,
    secretAccessKey: c.SecretAccessKey,
    sessionToken: c.SessionToken,
    expiration: c.Expiration ?? new Date(Date.now() + SESSION_SECONDS * 1000),
  };
}

/** The delivery principal's session (hop 1), cached per container. */
function principalCredentials(): Promise<AwsCredentials> {
  if (fresh(principalSession, Date.now())) return Promise.resolve(principalSession);
  principalPending ??= stsClients()
    .principal.send(
      new AssumeRoleCommand({
        RoleArn: deliveryPrincipalArn(),
        RoleSessionName: 'causeway-delivery',
        DurationSeconds: SESSION_SECONDS,
      }),
    )
    .then(credentialsOf)
    .then((credentials) => {
      principalSession = credentials;
      return credentials;
    })
    .finally(() => {
      principalPending = undefined;
    });
  return principalPending;
}

export interface CustomerRole {
  roleArn: string;
  externalId: string;
  webhookId: number;
}

const sessionName = (webhookId: number) => `causeway-webhook-${webhookId}`;

/** Hop 2: the customer's role assumed through the principal, or an `AssumeRoleRefused`. */
async function assumeCustomerRole(role: CustomerRole): Promise<AwsCredentials> {
  // Hop 1's failure is the service's own, not the customer's: it is thrown as it is.
  await principalCredentials();
  try {
    return credentialsOf(
      await stsClients().customer.send(
        new AssumeRoleCommand({
          RoleArn: role.roleArn,
          ExternalId: role.externalId,
          RoleSessionName: sessionName(role.webhookId),
          DurationSeconds: SESSION_SECONDS,
        }),
      ),
    );
  } catch (error) {
    const e = error as {
      name?: string;
      Code?: string;
      message?: string;
      $metadata?: { httpStatusCode?: number };
    };
    throw new AssumeRoleRefused(
      e.Code ?? e.name ?? 'AssumeRoleFailed',
      e.$metadata?.httpStatusCode,
      String(e.message ?? error).slice(0, 500),
    );
  }
}

/**
 * Credentials of the customer's role for this webhook: cached until 5 minutes before they expire;
 * a refusal (`AssumeRoleRefused`) is answered again for 30 s unless `fresh` asks STS anew.
 */
export function customerCredentials(
  role: CustomerRole,
  options: { fresh?: boolean } = {},
): Promise<AwsCredentials> {
  const key = `${role.roleArn}\n${role.externalId}\n${role.webhookId}`;
  const now = Date.now();
  const cached = sessions.get(key);
  if (cached !== undefined) {
    if ('credentials' in cached && fresh(cached.credentials, now)) return Promise.resolve(cached.credentials);
    if ('refused' in cached && cached.until > now && !options.fresh) return Promise.reject(cached.refused);
  }
  let call = pending.get(key);
  if (call === undefined) {
    call = assumeCustomerRole(role)
      .then(
        (credentials) => {
          remember(key, { credentials });
          return credentials;
        },
        (error: unknown) => {
          // A refusal of the customer's role is kept briefly; a timeout or a 5xx is not.
          if (error instanceof AssumeRoleRefused && (error.httpStatusCode ?? 500) < 500)
            remember(key, { refused: error, until: Date.now() + REFUSAL_MS });
          throw error;
        },
      )
      .finally(() => pending.delete(key));
    pending.set(key, call);
  }
  return call;
}

function remember(key: string, entry: Cached): void {
  sessions.delete(key);
  sessions.set(key, entry);
  if (sessions.size > MAX_SESSIONS) {
    const oldest = sessions.keys().next().value;
    if (oldest !== undefined) sessions.delete(oldest);
  }
}
