/**
 * SQS destinations end to end (issue 40, step 4; ADR 0019) through the local cloud and its sandbox
 * AWS account: a webhook whose deliveries go into the customer's queue by assuming their role,
 * the trust checked at create and PATCH (a wrong ExternalId, none yet, another principal's role),
 * the message and its attributes verified with `standardwebhooks`, a denied send recorded and
 * retried, a queue gone disabling the webhook, FIFO ids, PATCH between a URL and a destination,
 * and the credential cache (AssumeRole lines in the sandbox's trail).
 */
import { ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { beforeAll, describe, expect, it } from 'vitest';
import { call, createKey, eventually } from '../../support/api';
import { createHooks, publish } from './helpers';
import {
  account,
  deleteQueue,
  externalIdOf,
  hook,
  received,
  recordsOf,
  SECRET,
  sandboxQueue,
  sandboxRole,
  statusBecomes,
  TYPE,
  trailOf,
} from './sandbox';

const run = Math.random().toString(36).slice(2, 10);

/** A new queue and a role trusting `externalId` (`deny`: an action the role may not make). */
async function sandbox(externalId: string, options: { fifo?: boolean; deny?: string } = {}) {
  const roleArn = await sandboxRole(externalId, options.deny);
  const { queue, queueUrl } = await sandboxQueue(options.fifo);
  return { queue, destination: { type: 'sqs', queueUrl, roleArn } };
}

describe('webhooks with an SQS destination', () => {
  let owner: { userId: number; apiKey: string };
  let externalId: string;

  beforeAll(async () => {
    owner = await createKey(`aws-destination-${run}`);
    externalId = await externalIdOf(owner.apiKey);
  });

  it('delivers into the queue: the exact payload, its signature in the attributes, a 200 with the message id', async () => {
    const { queue, destination } = await sandbox(externalId);
    const created = await call('POST', '/webhooks', {
      key: owner.apiKey,
      body: { webhooks: [hook('to a queue', { destination })] },
    });
    expect(created.status, created.text).toBe(201);
    const view = created.body.createdWebhooks[0];
    expect(view.destination).toEqual(destination);
    expect(view).not.toHaveProperty('url');
    expect(view).not.toHaveProperty('externalId');
    const shown = await call('GET', `/webhooks/${view.id}`, { key: owner.apiKey });
    expect(shown.body.destination).toEqual(destination);
    expect(shown.body).not.toHaveProperty('url');

    await publish({ notificationType: TYPE, text: 'into the queue', recipients: [owner.userId] });
    const [message] = await received(queue, 1);
    const payload = JSON.parse(message?.body as string);
    expect(payload).toMatchObject({ text: 'into the queue', webhookId: view.id, webhookName: 'to a queue' });
    const attributes = message?.attributes as Record<string, string>;
    expect(Object.keys(attributes).sort()).toEqual(['webhook-id', 'webhook-signature', 'webhook-timestamp']);
    // Read at once, within the library's 5-minute tolerance…
    expect(new StandardWebhook(SECRET).verify(message?.body as string, attributes)).toEqual(payload);
    // …and by hand, as a receiver reading late must (docs/webhooks.md): the same signature.
    const expected = new StandardWebhook(SECRET).sign(
      attributes['webhook-id'] as string,
      new Date(Number(attributes['webhook-timestamp']) * 1000),
      message?.body as string,
    );
    expect(attributes['webhook-signature']?.split(' ')).toContain(expected);

    const [record] = await recordsOf(owner.apiKey, view.id, 1);
    expect(record).toMatchObject({ statusCode: 200, url: destination.queueUrl, attempt: 1 });
    expect(JSON.stringify(record?.response)).toMatch(/messageId/);

    // A test send goes the same way.
    const test = await call('POST', `/webhooks/${view.id}/test`, { key: owner.apiKey });
    expect(test.status, test.text).toBe(201);
    expect(test.body.statusCode).toBe(200);
    expect((await received(queue, 1))[0]?.attributes['webhook-signature']).toBeTruthy();
  });

  it('refuses a role that does not trust the owner’s ExternalId: 422 with the trust policy, nothing stored', async () => {
    const { destination } = await sandbox('not-the-owners-external-id');
    const before = (await call('GET', '/webhooks', { key: owner.apiKey })).body.length;
    const refused = await call('POST', '/webhooks', {
      key: owner.apiKey,
      body: { webhooks: [hook('wrong external id', { destination })] },
    });
    expect(refused.status, refused.text).toBe(422);
    const [error] = refused.body.errors;
    expect(error.message).toMatch(/^destination\.roleArn: AssumeRole refused \(AccessDenied/);
    expect(error.message).toContain('ExternalId');
    expect(error.trustPolicy.Statement[0]).toMatchObject({
      Principal: { AWS: account.principalArn },
      Condition: { StringEquals: { 'sts:ExternalId': externalId } },
    });
    expect((await call('GET', '/webhooks', { key: owner.apiKey })).body.length).toBe(before);
  });

  it('refuses another principal’s role, and a destination before the owner has an ExternalId', async () => {
    const other = await createKey(`aws-destination-other-${run}`);
    // The owner's role (their ExternalId): another user naming it is refused.
    const { destination } = await sandbox(externalId);
    const none = await call('POST', '/webhooks', {
      key: other.apiKey,
      body: { webhooks: [hook('no external id yet', { destination })] },
    });
    expect(none.status, none.text).toBe(422);
    expect(none.body.errors[0].message).toMatch(/^destination\.roleArn: .*GET \/webhooks\/aws-trust first/);
    await externalIdOf(other.apiKey);
    const refused = await call('POST', '/webhooks', {
      key: other.apiKey,
      body: { webhooks: [hook('someone else’s role', { destination })] },
    });
    expect(refused.status, refused.text).toBe(422);
    expect(refused.body.errors[0].message).toMatch(/AssumeRole refused \(AccessDenied/);
  });

  it('refuses shapes that are not AWS’s, another account’s role and the service’s own account (400s)', async () => {
    const { destination } = await sandbox(externalId);
    const cases: [Record<string, unknown>, RegExp][] = [
      [
        { ...destination, queueUrl: 'https://example.com/000000000002/q' },
        /destination\.queueUrl: must be an SQS/,
      ],
      [
        { ...destination, roleArn: 'arn:aws:iam::000000000002:user/u' },
        /destination\.roleArn: must be an IAM role/,
      ],
      [
        { ...destination, roleArn: 'arn:aws:iam::000000000003:role/r' },
        /destination\.roleArn: must be a role of the queue's account/,
      ],
      [
        { ...destination, queueUrl: 'https://sqs.us-east-1.amazonaws.com/000000000000/deliveries' },
        /destination\.queueUrl: is in the service's own AWS account/,
      ],
      [
        { type: 'sns', topicArn: 'arn:aws:sns:us-east-1:000000000003:t', roleArn: destination.roleArn },
        /destination\.roleArn: must be a role of the topic's account/,
      ],
      [
        { type: 'sns', topicArn: 'arn:aws:sns:us-east-1:000000000002:t:sub', roleArn: destination.roleArn },
        /destination\.topicArn: must be an SNS topic ARN/,
      ],
      [
        {
          type: 'eventbridge',
          eventBusArn: 'arn:aws:events:us-east-1:000000000002:rule/r',
          roleArn: destination.roleArn,
        },
        /destination\.eventBusArn: must be an EventBridge event bus ARN/,
      ],
      [
        {
          type: 'eventbridge',
          eventBusArn: 'arn:aws:events:us-east-1:000000000000:event-bus/b',
          roleArn: destination.roleArn,
        },
        /destination\.eventBusArn: is in the service's own AWS account/,
      ],
      [
        {
          type: 'eventbridge',
          eventBusArn: 'arn:aws:events:us-east-1:000000000002:event-bus/b',
          roleArn: destination.roleArn,
          source: 'aws.events',
        },
        /destination\.source: /,
      ],
      [
        { type: 'kinesis', roleArn: destination.roleArn },
        /destination\.type: must be "sqs", "sns" or "eventbridge"/,
      ],
    ];
    for (const [bad, message] of cases) {
      const answer = await call('POST', '/webhooks', {
        key: owner.apiKey,
        body: { webhooks: [hook('bad', { destination: bad })] },
      });
      expect(answer.status, answer.text).toBe(400);
      expect(answer.body.message).toMatch(/^body\.webhooks\[0\]\.destination/);
      expect(answer.body.message).toMatch(message);
    }
    const both = await call('POST', '/webhooks', {
      key: owner.apiKey,
      body: { webhooks: [hook('both', { destination, url: 'https://example.com/h' })] },
    });
    expect(both.status, both.text).toBe(400);
    expect(both.body.message).toBe('body.webhooks[0].destination: send either url or destination, not both');
  });

  it('records a send the role may not make as a failed attempt with AccessDenied, and retries it', async () => {
    const { destination } = await sandbox(externalId, { deny: 'sqs:SendMessage' });
    const [id] = await createHooks(owner.apiKey, [hook('denied', { destination })]);
    await publish({ notificationType: TYPE, text: 'denied', recipients: [owner.userId] });
    const records = await recordsOf(owner.apiKey, id as number, 2, 45_000);
    for (const record of records.slice(0, 2)) {
      expect(record.statusCode).toBe(403);
      expect(record.response.body).toMatchObject({ code: 'AccessDenied' });
    }
    expect(records.map((r) => r.attempt).sort()).toEqual([1, 2]);
    expect((await call('GET', `/webhooks/${id}`, { key: owner.apiKey })).body.status).toBe('enabled');
  });

  it('disables the webhook when its queue no longer exists', async () => {
    const { queue, destination } = await sandbox(externalId);
    const [id] = await createHooks(owner.apiKey, [hook('gone', { destination })]);
    await deleteQueue(queue);
    await publish({ notificationType: TYPE, text: 'to nowhere', recipients: [owner.userId] });
    const [record] = await recordsOf(owner.apiKey, id as number, 1);
    expect(record?.response.body.code).toMatch(/QueueDoesNotExist|NonExistentQueue/);
    expect((await statusBecomes(owner.apiKey, id as number, 'autoDisabled')).body.status).toBe(
      'autoDisabled',
    );
  });

  it('gives a FIFO queue the delivery id as group and a deduplication id per attempt', async () => {
    const { queue, destination } = await sandbox(externalId, { fifo: true });
    const [id] = await createHooks(owner.apiKey, [hook('fifo', { destination })]);
    await publish({ notificationType: TYPE, text: 'in order', recipients: [owner.userId] });
    const [record] = await recordsOf(owner.apiKey, id as number, 1);
    expect(record?.statusCode).toBe(200);
    // A manual retry of the same attempt is a new message, not deduplicated away.
    const retried = await call('POST', `/webhooks/history/retry/${record?.id}`, { key: owner.apiKey });
    expect(retried.status, retried.text).toBe(201);
    const emulator = new SQSClient({
      region: 'us-east-1',
      endpoint: account.emulator,
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    const messages = await eventually(
      async () =>
        (
          await emulator.send(
            new ReceiveMessageCommand({
              QueueUrl: `${account.emulator}/000000000000/${queue}`,
              MaxNumberOfMessages: 10,
              WaitTimeSeconds: 1,
              MessageSystemAttributeNames: ['All'],
              MessageAttributeNames: ['All'],
            }),
          )
        ).Messages ?? [],
      (found) => found.length >= 1,
      15_000,
    );
    const first = messages[0];
    expect(first?.Attributes?.MessageGroupId).toBe(record?.deliveryId);
    expect(first?.Attributes?.MessageDeduplicationId).toMatch(/^[0-9a-f]{64}$/);
  });

  it('switches by PATCH from a URL to a destination and back; a refused destination changes nothing', async () => {
    const { destination } = await sandbox(externalId);
    const [id] = await createHooks(owner.apiKey, [
      hook('switching', { url: 'https://example.com/switching' }),
    ]);
    const both = await call('PATCH', `/webhooks/${id}`, {
      key: owner.apiKey,
      body: { url: 'https://example.com/x', destination },
    });
    expect(both.status, both.text).toBe(400);
    expect(both.body.message).toMatch(/destination: send either url or destination, not both/);
    const untrusted = await sandbox('someone-else');
    const refused = await call('PATCH', `/webhooks/${id}`, {
      key: owner.apiKey,
      body: { destination: untrusted.destination, name: 'not applied' },
    });
    expect(refused.status, refused.text).toBe(422);
    expect(refused.body.message).toMatch(/^body\.destination\.roleArn: AssumeRole refused/);
    expect(refused.body.trustPolicy.Statement[0].Condition.StringEquals['sts:ExternalId']).toBe(externalId);
    const unchanged = await call('GET', `/webhooks/${id}`, { key: owner.apiKey });
    expect(unchanged.body).toMatchObject({ url: 'https://example.com/switching', name: 'switching' });
    expect(unchanged.body).not.toHaveProperty('destination');

    const bad = await call('PATCH', `/webhooks/${id}`, {
      key: owner.apiKey,
      body: { destination: { ...destination, roleArn: 'arn:aws:iam::000000000003:role/r' } },
    });
    expect(bad.status, bad.text).toBe(400);
    expect(bad.body.message).toMatch(/^body\.destination\.roleArn: /);

    const toQueue = await call('PATCH', `/webhooks/${id}`, { key: owner.apiKey, body: { destination } });
    expect(toQueue.status, toQueue.text).toBe(200);
    expect(toQueue.body.destination).toEqual(destination);
    expect(toQueue.body).not.toHaveProperty('url');
    const toUrl = await call('PATCH', `/webhooks/${id}`, {
      key: owner.apiKey,
      body: { url: 'https://example.com/back' },
    });
    expect(toUrl.status, toUrl.text).toBe(200);
    expect(toUrl.body.url).toBe('https://example.com/back');
    expect(toUrl.body).not.toHaveProperty('destination');
  });

  it('assumes the role a few times for many deliveries (the credential cache)', async () => {
    const { queue, destination } = await sandbox(externalId);
    const [id] = await createHooks(owner.apiKey, [hook('cached', { destination })]);
    const N = 8;
    for (let n = 0; n < N; n++)
      await publish({ notificationType: TYPE, text: `cached ${n}`, recipients: [owner.userId] });
    expect(await received(queue, N, 45_000)).toHaveLength(N);
    const calls = trailOf('AssumeRole', destination.roleArn);
    expect(calls.length).toBeGreaterThanOrEqual(1);
    // The create check, then one per process that sends (the deliveries consumer).
    expect(calls.length).toBeLessThanOrEqual(3);
    // The customer's trail names the webhook that sent.
    const sends = trailOf('SendMessage', destination.queueUrl);
    expect(sends).toHaveLength(N);
    for (const entry of sends) expect(entry.roleSessionName).toBe(`causeway-webhook-${id}`);
  });
});
