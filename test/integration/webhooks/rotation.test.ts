/**
 * Secret rotation and test sends through the local cloud (the integration tier's overlap window
 * is 5 s, WEBHOOK_SECRET_OVERLAP_SECONDS in test/support/global-setup.ts): the `svix` and
 * `standardwebhooks` verifiers accept a delivery with either secret inside the window and only
 * the new one after it.
 */
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { Webhook as SvixWebhook } from 'svix';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { call, createKey, untilDone } from '../../support/api';
import { allHistory, createHooks, publish, untilCount } from './helpers';
import { type Received, type Receiver, startReceiver } from './receiver';

const whsec = (byte: number) => `whsec_${Buffer.alloc(24, byte).toString('base64')}`;

/** Whether `secret` verifies the request with both verifiers (they must agree). */
function verifies(secret: string, request: Received): boolean {
  const outcomes = [new SvixWebhook(secret), new StandardWebhook(secret)].map((verifier) => {
    try {
      verifier.verify(request.body, request.headers);
      return true;
    } catch {
      return false;
    }
  });
  expect(outcomes[0]).toBe(outcomes[1]);
  return outcomes[0] as boolean;
}

describe('secret rotation and test sends', () => {
  let receiver: Receiver;
  let owner: { userId: number; apiKey: string };
  const X = 'modelUserAdded';

  beforeAll(async () => {
    receiver = await startReceiver();
  });
  // Test sends count against the owner's manual send limit: one owner per test.
  beforeEach(async () => {
    owner = await createKey('rotation-owner');
  });
  afterAll(async () => {
    await receiver.close();
  });

  const hook = (name: string, secret?: string) => ({
    name,
    url: receiver.url(`/${name}`),
    global: false,
    notificationType: [X],
    actionType: 'triggered',
    ...(secret ? { secret } : {}),
  });

  const testSend = async (id: number) => {
    const sent = await call('POST', `/webhooks/${id}/test`, { key: owner.apiKey });
    expect(sent.status, sent.text).toBe(201);
    return sent.body;
  };

  it('signs with both secrets inside the overlap window and only the new one after', async () => {
    const oldSecret = whsec(1);
    const [id] = await createHooks(owner.apiKey, [hook('rotated', oldSecret)]);
    const rotated = await call('POST', `/webhooks/${id}/secret/rotate`, { key: owner.apiKey });
    expect(rotated.status, rotated.text).toBe(200);
    const newSecret = rotated.body.secret as string;
    expect(newSecret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(Buffer.from(newSecret.slice(6), 'base64')).toHaveLength(24);
    const windowEnds = Date.parse(rotated.body.webhook.previousSecretExpiresAt);
    expect(windowEnds).toBeGreaterThan(Date.now());
    // Returned once: never in a later answer.
    expect(JSON.stringify((await call('GET', `/webhooks/${id}`, { key: owner.apiKey })).body)).not.toContain(
      newSecret,
    );

    await testSend(id as number);
    const [inside] = receiver.byPath('/rotated');
    expect(Number(inside?.headers['webhook-timestamp']) * 1000).toBeLessThan(windowEnds);
    expect(inside?.headers['webhook-signature']?.split(' ')).toHaveLength(2);
    expect(verifies(newSecret, inside as Received)).toBe(true);
    expect(verifies(oldSecret, inside as Received)).toBe(true);
    expect(verifies(whsec(9), inside as Received)).toBe(false);

    // The pipeline signs the same way.
    await publish({ notificationType: X, text: 'after rotation', recipients: [owner.userId] });
    await untilCount(() => receiver.byPath('/rotated').length, 2, 'the pipeline delivery');
    expect(verifies(newSecret, receiver.byPath('/rotated')[1] as Received)).toBe(true);

    await new Promise((r) => setTimeout(r, Math.max(0, windowEnds - Date.now()) + 1100));
    await testSend(id as number);
    const after = receiver.byPath('/rotated')[2] as Received;
    expect(after.headers['webhook-signature']?.split(' ')).toHaveLength(1);
    expect(verifies(newSecret, after)).toBe(true);
    expect(verifies(oldSecret, after)).toBe(false);
    expect(
      (await call('GET', `/webhooks/${id}`, { key: owner.apiKey })).body.previousSecretExpiresAt,
    ).toBeUndefined();
  });

  it('takes the caller’s secret without echoing it, gives a webhook without one its first, and refuses a weak one', async () => {
    const [id] = await createHooks(owner.apiKey, [hook('first-secret')]);
    await testSend(id as number);
    expect(receiver.byPath('/first-secret')[0]?.headers['webhook-signature']).toBeUndefined();
    const chosen = 'a raw secret of enough length';
    const rotated = await call('POST', `/webhooks/${id}/secret/rotate`, {
      key: owner.apiKey,
      body: { secret: chosen },
    });
    expect(rotated.status, rotated.text).toBe(200);
    expect(rotated.body.secret).toBeUndefined();
    expect(rotated.text).not.toContain(chosen);
    expect(rotated.body.webhook.previousSecretExpiresAt).toBeUndefined();
    await testSend(id as number);
    const signed = receiver.byPath('/first-secret')[1] as Received;
    const raw = new StandardWebhook(Buffer.from(chosen).toString('base64'));
    expect(() => raw.verify(signed.body, signed.headers)).not.toThrow();
    const weak = await call('POST', `/webhooks/${id}/secret/rotate`, {
      key: owner.apiKey,
      body: { secret: 'short' },
    });
    expect(weak.status).toBe(400);
    expect(weak.body.message).toMatch(/secret/);
  });

  it('records a test send in the history, marked as a test, and answers with that record', async () => {
    const [id] = await createHooks(owner.apiKey, [hook('tested', whsec(3))]);
    const record = await testSend(id as number);
    expect(record).toMatchObject({
      test: true,
      webhooksId: id,
      statusCode: 200,
      notificationType: X,
      attempt: 1,
      request: { webhookId: id, metadata: { notificationType: X, test: true } },
    });
    const [post] = receiver.byPath('/tested');
    expect(post?.headers['webhook-id']).toBe(record.deliveryId);
    expect(verifies(whsec(3), post as Received)).toBe(true);
    const listed = await untilDone(
      async () => (await allHistory(owner.apiKey)).find((r) => r.id === record.id),
      (found) => found !== undefined,
      { what: 'the test record in the history' },
    );
    expect(listed).toMatchObject({ test: true, deliveryId: record.deliveryId });
    const wrongType = await call('POST', `/webhooks/${id}/test`, {
      key: owner.apiKey,
      body: { notificationType: 'queryCreated' },
    });
    expect(wrongType.status).toBe(400);
    expect(wrongType.body.message).toMatch(/body\.notificationType/);
  });
});
