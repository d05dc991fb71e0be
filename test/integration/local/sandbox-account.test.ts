/**
 * The local stage's sandbox AWS account (issue 40, step 3), with real SDK clients end to end:
 * the two AssumeRole hops a delivery makes (the service's functions → the stage's delivery
 * principal → the customer's role, with its ExternalId), sends with the assumed credentials to a
 * queue, a topic and an event bus, and what the front refuses (a wrong or missing ExternalId, a
 * role assumed by anyone but the principal, a denied action, a resource of another account, a
 * bad signature, a chained session over an hour). `sandbox aws …` makes the resources and reads
 * what arrived, as the operator CLI does.
 */
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { AssumeRoleCommand, STSClient } from '@aws-sdk/client-sts';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { sandboxAwsCommand } from '../../../infra/cli/sandbox-aws';

interface AwsCredentialIdentity {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

const endpoints = inject('endpoints');
const stateDir = inject('stateDir');
const account = endpoints.sandboxAccount;
const region = 'us-east-1';
const SERVICE: AwsCredentialIdentity = { accessKeyId: 'local', secretAccessKey: 'local' };
const run = randomUUID().slice(0, 8);
const externalId = `ext-${randomUUID()}`;

const cli = async (...args: string[]) =>
  (await sandboxAwsCommand(args, account, join(stateDir, 'sandbox'))).map((line) => JSON.parse(line));
const client = <C>(
  Client: new (config: object) => C,
  credentials: AwsCredentialIdentity,
  extra: object = {},
) => new Client({ region, endpoint: account.endpoint, credentials, maxAttempts: 1, ...extra });
const credentialsOf = (out: {
  Credentials?: { AccessKeyId?: string; SecretAccessKey?: string; SessionToken?: string };
}) => ({
  accessKeyId: out.Credentials?.AccessKeyId as string,
  secretAccessKey: out.Credentials?.SecretAccessKey as string,
  sessionToken: out.Credentials?.SessionToken as string,
});

/** Hop 1: the service's functions assume the stage's delivery principal. */
async function principal(): Promise<AwsCredentialIdentity> {
  const sts = client(STSClient, SERVICE);
  return credentialsOf(
    await sts.send(
      new AssumeRoleCommand({ RoleArn: account.principalArn, RoleSessionName: 'causeway-delivery' }),
    ),
  );
}

/** Hop 2: the principal assumes the customer's role with an ExternalId (`null`: none). */
async function customer(roleArn: string, id: string | null = externalId, session = 'causeway-webhook-1') {
  const sts = client(STSClient, await principal());
  return credentialsOf(
    await sts.send(
      new AssumeRoleCommand({ RoleArn: roleArn, RoleSessionName: session, ExternalId: id ?? undefined }),
    ),
  );
}

async function rejection(
  promise: Promise<unknown>,
): Promise<{ name: string; status?: number; message: string }> {
  const error = (await promise.then(
    () => undefined,
    (e: unknown) => e,
  )) as { name: string; message: string; $metadata?: { httpStatusCode?: number } } | undefined;
  expect(error, 'the call was refused').toBeDefined();
  return { name: error?.name ?? '', status: error?.$metadata?.httpStatusCode, message: error?.message ?? '' };
}

describe('the sandbox AWS account', () => {
  let roleArn: string;
  let queueUrl: string;
  beforeAll(async () => {
    [{ roleArn }] = await cli('create-role', '--name', `deliveries-${run}`, '--external-id', externalId);
    [{ queueUrl }] = await cli('create-queue', '--name', `orders-${run}`);
  });

  it('hands out AWS-shaped names in an account that is not the service’s', async () => {
    expect(roleArn).toBe(`arn:aws:iam::000000000002:role/deliveries-${run}`);
    expect(queueUrl).toBe(`https://sqs.us-east-1.amazonaws.com/000000000002/orders-${run}`);
    expect(account.principalArn).toMatch(/^arn:aws:iam::000000000000:role\/causeway-local-webhook-delivery$/);
  });

  it('delivers to a queue with the role’s session, attributes and all, and names the session in the trail', async () => {
    const session = `causeway-webhook-${run}`;
    const sqs = client(SQSClient, await customer(roleArn, externalId, session), {
      useQueueUrlAsEndpoint: false,
    });
    const sent = await sqs.send(
      new SendMessageCommand({
        QueueUrl: queueUrl,
        MessageBody: '{"hello":"world"}',
        MessageAttributes: { 'webhook-id': { DataType: 'String', StringValue: 'msg_1' } },
      }),
    );
    expect(sent.MessageId).toBeTruthy();
    const received = await cli('receive', '--queue', `orders-${run}`, '--wait', '5');
    expect(received).toEqual([{ body: '{"hello":"world"}', attributes: { 'webhook-id': 'msg_1' } }]);
    expect(await cli('receive', '--queue', `orders-${run}`)).toEqual([]);
    const trail = readFileSync(join(stateDir, 'sandbox', 'aws', 'trail.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(trail).toContainEqual(
      expect.objectContaining({
        eventName: 'SendMessage',
        roleSessionName: session,
        userIdentity: `arn:aws:sts::000000000002:assumed-role/deliveries-${run}/${session}`,
        resource: queueUrl,
      }),
    );
  });

  it('delivers to a FIFO queue with a message group and deduplication id', async () => {
    const [{ queueUrl: fifo }] = await cli('create-queue', '--name', `ordered-${run}`, '--fifo');
    expect(fifo).toMatch(/\.fifo$/);
    const sqs = client(SQSClient, await customer(roleArn), { useQueueUrlAsEndpoint: false });
    for (const n of [1, 2])
      await sqs.send(
        new SendMessageCommand({
          QueueUrl: fifo,
          MessageBody: `m${n}`,
          MessageGroupId: 'g',
          MessageDeduplicationId: `d${n}`,
        }),
      );
    const bodies = (await cli('receive', '--queue', `ordered-${run}.fifo`, '--wait', '5')).map((m) => m.body);
    expect(bodies[0]).toBe('m1');
  });

  it('publishes to a topic whose queue receives the raw message and its attributes', async () => {
    const [{ queueUrl: q }] = await cli('create-queue', '--name', `topic-q-${run}`);
    expect(q).toBeTruthy();
    const [{ topicArn }] = await cli('create-topic', '--name', `events-${run}`, '--queue', `topic-q-${run}`);
    expect(topicArn).toBe(`arn:aws:sns:us-east-1:000000000002:events-${run}`);
    const sns = client(SNSClient, await customer(roleArn));
    const out = await sns.send(
      new PublishCommand({
        TopicArn: topicArn,
        Message: '{"n":1}',
        MessageAttributes: { 'webhook-signature': { DataType: 'String', StringValue: 'v1,abc' } },
      }),
    );
    expect(out.MessageId).toBeTruthy();
    expect(await cli('receive', '--queue', `topic-q-${run}`, '--wait', '5')).toEqual([
      { body: '{"n":1}', attributes: { 'webhook-signature': 'v1,abc' } },
    ]);
  });

  it('puts events on a bus whose rule sends them, in EventBridge’s envelope, to its queue', async () => {
    await cli('create-queue', '--name', `bus-q-${run}`);
    const [{ eventBusArn }] = await cli('create-bus', '--name', `bus-${run}`, '--queue', `bus-q-${run}`);
    expect(eventBusArn).toBe(`arn:aws:events:us-east-1:000000000002:event-bus/bus-${run}`);
    const events = client(EventBridgeClient, await customer(roleArn));
    const out = await events.send(
      new PutEventsCommand({
        Entries: [
          {
            EventBusName: eventBusArn,
            Source: 'causeway.webhooks',
            DetailType: 'modelCreated',
            Detail: '{"a":1}',
          },
          { EventBusName: eventBusArn, Source: 'causeway.webhooks', DetailType: 'x', Detail: '[not json' },
        ],
      }),
    );
    expect(out.FailedEntryCount).toBe(1);
    expect(out.Entries?.[1]?.ErrorCode).toBe('MalformedDetail');
    const [message] = await cli('receive', '--queue', `bus-q-${run}`, '--wait', '5');
    const event = JSON.parse(message.body);
    expect(event).toMatchObject({
      id: out.Entries?.[0]?.EventId,
      source: 'causeway.webhooks',
      'detail-type': 'modelCreated',
      account: '000000000002',
      region,
      detail: { a: 1 },
    });
    const missing = await rejection(
      events.send(
        new PutEventsCommand({
          Entries: [{ EventBusName: `gone-${run}`, Source: 's', DetailType: 'd', Detail: '{}' }],
        }),
      ),
    );
    expect(missing.name).toBe('ResourceNotFoundException');
  });

  it('refuses the role to a wrong or missing ExternalId, and to anyone but the principal', async () => {
    for (const id of ['wrong', null]) {
      const refused = await rejection(customer(roleArn, id));
      expect(refused).toMatchObject({ name: 'AccessDenied', status: 403 });
      expect(refused.message).toContain(
        `is not authorized to perform: sts:AssumeRole on resource: ${roleArn}`,
      );
    }
    // The service's functions themselves (not through the principal) may not assume it.
    const direct = client(STSClient, SERVICE);
    expect(
      (
        await rejection(
          direct.send(
            new AssumeRoleCommand({ RoleArn: roleArn, RoleSessionName: 'x1', ExternalId: externalId }),
          ),
        )
      ).name,
    ).toBe('AccessDenied');
    // A customer's session may not assume the principal.
    const fromCustomer = client(STSClient, await customer(roleArn));
    expect(
      (
        await rejection(
          fromCustomer.send(new AssumeRoleCommand({ RoleArn: account.principalArn, RoleSessionName: 'x2' })),
        )
      ).name,
    ).toBe('AccessDenied');
    // A role of the service's own account is never the principal's to assume.
    const principalSts = client(STSClient, await principal());
    expect(
      (
        await rejection(
          principalSts.send(
            new AssumeRoleCommand({
              RoleArn: 'arn:aws:iam::000000000000:role/admin',
              RoleSessionName: 'x3',
              ExternalId: externalId,
            }),
          ),
        )
      ).name,
    ).toBe('AccessDenied');
    // Role chaining caps a session at one hour.
    expect(
      (
        await rejection(
          principalSts.send(
            new AssumeRoleCommand({
              RoleArn: roleArn,
              RoleSessionName: 'x4',
              ExternalId: externalId,
              DurationSeconds: 7200,
            }),
          ),
        )
      ).name,
    ).toBe('ValidationError');
  });

  it('refuses an action the role denies, and resources of another account', async () => {
    const [{ roleArn: denying }] = await cli(
      'create-role',
      '--name',
      `no-sqs-${run}`,
      '--external-id',
      externalId,
      '--deny',
      'sqs:SendMessage',
    );
    const sqs = client(SQSClient, await customer(denying), { useQueueUrlAsEndpoint: false });
    const denied = await rejection(
      sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: 'x' })),
    );
    expect(denied).toMatchObject({ name: 'AccessDenied', status: 403 });
    expect(denied.message).toContain('sqs:SendMessage');
    const allowed = client(SQSClient, await customer(roleArn), { useQueueUrlAsEndpoint: false });
    const elsewhere = await rejection(
      allowed.send(
        new SendMessageCommand({
          QueueUrl: `https://sqs.us-east-1.amazonaws.com/000000000000/orders-${run}`,
          MessageBody: 'x',
        }),
      ),
    );
    expect(elsewhere.name).toBe('AccessDenied');
    expect(await cli('receive', '--queue', `orders-${run}`)).toEqual([]);
  });

  it('refuses a signature made with the wrong secret and a key it never issued', async () => {
    const good = await customer(roleArn);
    const wrongSecret = client(
      SQSClient,
      { ...good, secretAccessKey: 'not-the-secret' },
      { useQueueUrlAsEndpoint: false },
    );
    expect(
      (await rejection(wrongSecret.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: 'x' }))))
        .name,
    ).toBe('SignatureDoesNotMatch');
    const unknown = client(
      SQSClient,
      { accessKeyId: 'ASIANEVERISSUED', secretAccessKey: 's', sessionToken: 't' },
      { useQueueUrlAsEndpoint: false },
    );
    expect(
      (await rejection(unknown.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: 'x' })))).name,
    ).toBe('InvalidClientTokenId');
  });

  it('refuses usage errors in the CLI, naming the flag', async () => {
    await expect(cli('create-queue', '--name', 'bad name')).rejects.toThrow('--name must be a queue name');
    await expect(cli('create-topic', '--name', `t-${run}`, '--queue', `missing-${run}`)).rejects.toThrow(
      `no queue missing-${run} in the sandbox account`,
    );
    await expect(
      cli('create-role', '--name', 'r', '--external-id', 'x1', '--deny', 's3:GetObject'),
    ).rejects.toThrow('--deny must name one of');
    await expect(cli('create-role', '--name', 'r')).rejects.toThrow('--external-id X is required');
  });

  it('keeps idle connections open 65 s, as the gateway does, so a client closes them first', async () => {
    // A client reusing a socket the front closes at that moment gets ECONNRESET, and an AWS
    // destination's AssumeRole has one try: the front advertises a timeout a client undercuts.
    for (const url of [account.endpoint, `${endpoints.gateway}/health`]) {
      const reply = await fetch(url, { method: 'POST', body: 'Action=GetCallerIdentity' });
      await reply.arrayBuffer();
      expect(reply.headers.get('keep-alive'), url).toBe('timeout=65');
    }
  });

  it('runs as the operator CLI against the cloud on STATE_DIR, printing JSON', () => {
    const out = spawnSync(
      'npm',
      ['run', '--silent', 'cli', '--', 'sandbox', 'aws', 'create-queue', '--name', `cli-${run}`],
      {
        cwd: join(import.meta.dirname, '..', '..', '..'),
        env: { ...process.env, STATE_DIR: stateDir },
        encoding: 'utf8',
      },
    );
    expect(out.status, out.stderr).toBe(0);
    expect(JSON.parse(out.stdout)).toEqual({
      queueUrl: `https://sqs.us-east-1.amazonaws.com/000000000002/cli-${run}`,
      queueArn: `arn:aws:sqs:us-east-1:000000000002:cli-${run}`,
    });
  });
});
