/**
 * SNS topics and EventBridge buses as destinations (issue 40, step 5; ADR 0019) through the local
 * cloud and its sandbox AWS account, as the SQS destination is tested in ./aws-destination.test.ts:
 * - a topic delivers: the message and its attributes arrive raw in the subscribed queue, the
 *   signature verified with `standardwebhooks`;
 * - a bus delivers: the event's `detail` is the payload, its `resources` the delivery id, its
 *   source and detail-type as configured or defaulted;
 * - a topic or bus that does not exist is gone (the webhook auto-disabled);
 * - a send the role may not make is a failed attempt, retried;
 * - an event refused inside EventBridge's HTTP 200 is a failed attempt with a non-2xx status.
 */
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { beforeAll, describe, expect, it } from 'vitest';
import { call, createKey } from '../../support/api';
import { type AnyRecord, createHooks, publish } from './helpers';
import {
  cli,
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
  uniqueName,
} from './sandbox';

const SANDBOX = '000000000002';

/** A new topic whose queue (subscribed with raw delivery) receives what is published. */
async function sandboxTopic(): Promise<{ queue: string; topicArn: string }> {
  const { queue } = await sandboxQueue();
  const [{ topicArn }] = await cli('create-topic', '--name', uniqueName('topic'), '--queue', queue);
  return { queue, topicArn };
}

/** A new bus whose rule sends every event, in EventBridge's envelope, to its queue. */
async function sandboxBus(): Promise<{ queue: string; eventBusArn: string }> {
  const { queue } = await sandboxQueue();
  const [{ eventBusArn }] = await cli('create-bus', '--name', uniqueName('bus'), '--queue', queue);
  return { queue, eventBusArn };
}

describe('webhooks with an SNS topic or an EventBridge bus as destination', () => {
  let owner: { userId: number; apiKey: string };
  let externalId: string;

  beforeAll(async () => {
    owner = await createKey(`aws-topic-bus-${Math.random().toString(36).slice(2, 8)}`);
    externalId = await externalIdOf(owner.apiKey);
  });

  it('publishes to a topic: the exact payload, its signature in the attributes, a 200 with the message id', async () => {
    const roleArn = await sandboxRole(externalId);
    const { queue, topicArn } = await sandboxTopic();
    const destination = { type: 'sns', topicArn, roleArn };
    const created = await call('POST', '/webhooks', {
      key: owner.apiKey,
      body: { webhooks: [hook('to a topic', { destination })] },
    });
    expect(created.status, created.text).toBe(201);
    const view = created.body.createdWebhooks[0];
    expect(view.destination).toEqual(destination);
    expect(view).not.toHaveProperty('url');

    await publish({ notificationType: TYPE, text: 'into the topic', recipients: [owner.userId] });
    const [message] = await received(queue, 1);
    const body = message?.body as string;
    const payload = JSON.parse(body);
    expect(payload).toMatchObject({ text: 'into the topic', webhookId: view.id, webhookName: 'to a topic' });
    const attributes = message?.attributes as Record<string, string>;
    expect(Object.keys(attributes).sort()).toEqual(['webhook-id', 'webhook-signature', 'webhook-timestamp']);
    expect(new StandardWebhook(SECRET).verify(body, attributes)).toEqual(payload);

    const [record] = await recordsOf(owner.apiKey, view.id, 1);
    expect(record).toMatchObject({ statusCode: 200, url: topicArn, attempt: 1 });
    expect(record?.response.body).toEqual({ messageId: expect.any(String) });
    const publishes = trailOf('Publish', topicArn);
    expect(publishes).toHaveLength(1);
    expect(publishes[0]?.roleSessionName).toBe(`causeway-webhook-${view.id}`);
  });

  it('puts an event on a bus: detail the payload, resources the delivery id, source and detail-type defaulted or set', async () => {
    const roleArn = await sandboxRole(externalId);
    const plain = await sandboxBus();
    const named = await sandboxBus();
    const [plainId, namedId] = await createHooks(owner.apiKey, [
      hook('to a bus', { destination: { type: 'eventbridge', eventBusArn: plain.eventBusArn, roleArn } }),
      hook('to a named bus', {
        destination: {
          type: 'eventbridge',
          eventBusArn: named.eventBusArn,
          roleArn,
          source: 'com.example.orders',
          detailType: 'Order event',
        },
      }),
    ]);
    const shown = await call('GET', `/webhooks/${namedId}`, { key: owner.apiKey });
    expect(shown.body.destination).toMatchObject({ source: 'com.example.orders', detailType: 'Order event' });

    await publish({ notificationType: TYPE, text: 'onto the bus', recipients: [owner.userId] });
    for (const [bus, id, source, detailType] of [
      [plain, plainId, 'causeway.webhooks', TYPE],
      [named, namedId, 'com.example.orders', 'Order event'],
    ] as const) {
      const [message] = await received(bus.queue, 1);
      const event = JSON.parse(message?.body as string);
      const [record] = await recordsOf(owner.apiKey, id as number, 1);
      expect(record).toMatchObject({ statusCode: 200, url: bus.eventBusArn });
      expect(event).toMatchObject({ source, 'detail-type': detailType, account: SANDBOX });
      // The payload an HTTPS receiver gets, as EventBridge re-serialised it; the delivery id beside it.
      expect(event.detail).toEqual(record?.request);
      expect(event.detail).toMatchObject({ text: 'onto the bus', webhookId: id });
      expect(event.resources).toEqual([record?.deliveryId]);
      expect(record?.response.body).toEqual({ eventId: event.id });
    }
  });

  it('disables the webhook when its topic or bus does not exist', async () => {
    const roleArn = await sandboxRole(externalId);
    const [topicId, busId] = await createHooks(owner.apiKey, [
      hook('no topic', {
        destination: {
          type: 'sns',
          topicArn: `arn:aws:sns:us-east-1:${SANDBOX}:${uniqueName('gone')}`,
          roleArn,
        },
      }),
      hook('no bus', {
        destination: {
          type: 'eventbridge',
          eventBusArn: `arn:aws:events:us-east-1:${SANDBOX}:event-bus/${uniqueName('gone')}`,
          roleArn,
        },
      }),
    ]);
    await publish({ notificationType: TYPE, text: 'to nowhere', recipients: [owner.userId] });
    for (const [id, code] of [
      [topicId, 'NotFound'],
      [busId, 'ResourceNotFoundException'],
    ] as const) {
      const [record] = await recordsOf(owner.apiKey, id as number, 1);
      expect(record?.response.body.code).toBe(code);
      expect((await statusBecomes(owner.apiKey, id as number, 'autoDisabled')).body.status).toBe(
        'autoDisabled',
      );
    }
  });

  it.each([
    [
      'sns:Publish',
      sandboxTopic,
      (arn: string, roleArn: string) => ({ type: 'sns', topicArn: arn, roleArn }),
    ],
    [
      'events:PutEvents',
      sandboxBus,
      (arn: string, roleArn: string) => ({ type: 'eventbridge', eventBusArn: arn, roleArn }),
    ],
  ] as const)(
    'records %s the role may not make as a failed attempt with AccessDenied, and retries it',
    async (action, make, destination) => {
      const roleArn = await sandboxRole(externalId, action);
      const made = await make();
      const arn = 'topicArn' in made ? made.topicArn : made.eventBusArn;
      const [id] = await createHooks(owner.apiKey, [
        hook(`denied ${action}`, { destination: destination(arn, roleArn) }),
      ]);
      await publish({ notificationType: TYPE, text: 'denied', recipients: [owner.userId] });
      const records = await recordsOf(owner.apiKey, id as number, 2, 45_000);
      for (const record of records.slice(0, 2)) {
        expect(record.statusCode).toBe(403);
        expect(record.response.body.code).toMatch(/AccessDenied/);
      }
      expect(records.map((r: AnyRecord) => r.attempt).sort()).toEqual([1, 2]);
      expect((await call('GET', `/webhooks/${id}`, { key: owner.apiKey })).body.status).toBe('enabled');
    },
  );

  it('records an event refused inside EventBridge’s HTTP 200 as a failed attempt with a non-2xx status', async () => {
    const roleArn = await sandboxRole(externalId);
    const { queue, eventBusArn } = await sandboxBus();
    // The bus's rule target is gone: the sandbox refuses the entry (InternalFailure) in a 200.
    await deleteQueue(queue);
    const [id] = await createHooks(owner.apiKey, [
      hook('refused entry', { destination: { type: 'eventbridge', eventBusArn, roleArn } }),
    ]);
    await publish({ notificationType: TYPE, text: 'refused', recipients: [owner.userId] });
    const [record] = await recordsOf(owner.apiKey, id as number, 1);
    expect(record).toMatchObject({
      statusCode: 500,
      response: { body: { code: 'InternalFailure', connect: false } },
    });
    expect((await call('GET', `/webhooks/${id}`, { key: owner.apiKey })).body.status).toBe('enabled');
  });
});
