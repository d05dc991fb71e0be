/**
 * The destination credentials' cache (shared/webhooks/aws/credentials.ts; issue 40, step 4): two
 * STS hops, the principal's session and each customer session reused until 5 minutes before they
 * expire, concurrent requests sharing one call, refusals answered from memory for 30 s unless a
 * trust check asks afresh. STS is a stub here; the sandbox account runs the real calls
 * (test/integration/webhooks/aws-destination.test.ts).
 */
import { type AssumeRoleCommand, STSClient } from '@aws-sdk/client-sts';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DELIVERY_PRINCIPAL_ENV } from '../../../shared/catalog/access';

const PRINCIPAL = 'arn:aws:iam::000000000000:role/causeway-test-webhook-delivery';
const ROLE = 'arn:aws:iam::123456789012:role/deliveries';
const REFUSING = 'arn:aws:iam::123456789012:role/refusing';

let calls: Record<string, unknown>[];
let lifetimeMs: number;

function stubSts() {
  calls = [];
  vi.spyOn(STSClient.prototype, 'send').mockImplementation((async (command: AssumeRoleCommand) => {
    const input = command.input as unknown as Record<string, unknown>;
    calls.push(input);
    if (input.RoleArn === REFUSING)
      throw Object.assign(new Error('not authorized to perform: sts:AssumeRole'), {
        name: 'AccessDenied',
        $metadata: { httpStatusCode: 403 },
      });
    return {
      Credentials: {
        AccessKeyId: `AKIA${calls.length}`,
        SecretAccessKey: 'secret',
        SessionToken: 'token',
        Expiration: new Date(Date.now() + lifetimeMs),
      },
    };
  }) as never);
}

const customerCalls = () => calls.filter((c) => c.RoleArn !== PRINCIPAL);
const principalCalls = () => calls.filter((c) => c.RoleArn === PRINCIPAL);

async function load() {
  vi.resetModules();
  return import('../../../shared/webhooks/aws/credentials');
}

describe('destination credentials', () => {
  beforeEach(() => {
    vi.stubEnv('AWS_REGION', 'eu-west-1');
    vi.stubEnv(DELIVERY_PRINCIPAL_ENV, PRINCIPAL);
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-01-01T00:00:00Z'));
    lifetimeMs = 3_600_000;
    stubSts();
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllEnvs();
    vi.restoreAllMocks();
  });

  it('assumes the principal, then the role with the ExternalId, a session naming the webhook, one hour', async () => {
    const { customerCredentials } = await load();
    const role = { roleArn: ROLE, externalId: 'ext-1', webhookId: 7 };
    const credentials = await customerCredentials(role);
    expect(credentials.accessKeyId).toBe('AKIA2');
    expect(calls).toEqual([
      { RoleArn: PRINCIPAL, RoleSessionName: 'causeway-delivery', DurationSeconds: 3600 },
      { RoleArn: ROLE, ExternalId: 'ext-1', RoleSessionName: 'causeway-webhook-7', DurationSeconds: 3600 },
    ]);
  });

  it('reuses both sessions until 5 minutes before they expire, and shares one call between concurrent requests', async () => {
    const { customerCredentials } = await load();
    const role = { roleArn: ROLE, externalId: 'ext-1', webhookId: 7 };
    await Promise.all(Array.from({ length: 20 }, () => customerCredentials(role)));
    for (let n = 0; n < 20; n++) await customerCredentials(role);
    expect(customerCalls()).toHaveLength(1);
    vi.setSystemTime(Date.now() + 54 * 60_000);
    await customerCredentials(role);
    expect(customerCalls()).toHaveLength(1);
    vi.setSystemTime(Date.now() + 2 * 60_000);
    await customerCredentials(role);
    expect(customerCalls()).toHaveLength(2);
    expect(principalCalls()).toHaveLength(2);
  });

  it('keeps a session per webhook (its name names the webhook) and per ExternalId', async () => {
    const { customerCredentials } = await load();
    await customerCredentials({ roleArn: ROLE, externalId: 'ext-1', webhookId: 7 });
    await customerCredentials({ roleArn: ROLE, externalId: 'ext-1', webhookId: 8 });
    await customerCredentials({ roleArn: ROLE, externalId: 'ext-2', webhookId: 7 });
    await customerCredentials({ roleArn: ROLE, externalId: 'ext-1', webhookId: 7 });
    expect(customerCalls()).toHaveLength(3);
    expect(principalCalls()).toHaveLength(1);
  });

  it('answers a refusal from memory for 30 s, unless asked afresh', async () => {
    const { AssumeRoleRefused, customerCredentials } = await load();
    const role = { roleArn: REFUSING, externalId: 'ext-1', webhookId: 7 };
    const first = await customerCredentials(role).catch((e: unknown) => e);
    expect(first).toBeInstanceOf(AssumeRoleRefused);
    expect(first).toMatchObject({ code: 'AccessDenied', httpStatusCode: 403 });
    await expect(customerCredentials(role)).rejects.toBe(first);
    expect(customerCalls()).toHaveLength(1);
    await expect(customerCredentials(role, { fresh: true })).rejects.toBeInstanceOf(AssumeRoleRefused);
    expect(customerCalls()).toHaveLength(2);
    vi.setSystemTime(Date.now() + 31_000);
    await expect(customerCredentials(role)).rejects.toBeInstanceOf(AssumeRoleRefused);
    expect(customerCalls()).toHaveLength(3);
  });

  it('calls STS at the service’s region, locally at the sandbox account’s front', async () => {
    const { awsEndpoint, LOCAL_DESTINATION_ENDPOINT_ENV } = await load();
    expect(awsEndpoint('sqs', 'ap-southeast-2')).toBe('https://sqs.ap-southeast-2.amazonaws.com');
    expect(awsEndpoint('sts', 'eu-west-1')).toBe('https://sts.eu-west-1.amazonaws.com');
    vi.stubEnv(LOCAL_DESTINATION_ENDPOINT_ENV, 'http://127.0.0.1:4999');
    expect(awsEndpoint('sqs', 'ap-southeast-2')).toBe('http://127.0.0.1:4999');
  });

  it('bounds each STS and send call by the webhook timeout, unless WEBHOOK_AWS_TIMEOUT_MS is set', async () => {
    const { clientLimits } = await load();
    vi.stubEnv('WEBHOOK_TIMEOUT_MS', '4000');
    vi.stubEnv('CONNECT_TIMEOUT_MS', '3000');
    expect(clientLimits()).toEqual({
      maxAttempts: 1,
      requestHandler: { requestTimeout: 4000, connectionTimeout: 3000 },
    });
    vi.stubEnv('WEBHOOK_AWS_TIMEOUT_MS', '15000');
    expect(clientLimits()).toEqual({
      maxAttempts: 1,
      requestHandler: { requestTimeout: 15000, connectionTimeout: 3000 },
    });
  });
});
