/**
 * PATCH /webhooks/{id} through the local cloud: routing changes at once (fan-out's own log line
 * names the webhooks each notification went to, so "the old type stops" is read, not waited
 * for), bad input changes nothing, and racing PATCH / disable / enable / delete leave the
 * webhook and its subscription items consistent.
 */
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createKey, useLocalCloudEnv } from '../../support/api';
import { createHooks, fannedOutTo, publish, untilCount } from './helpers';
import { type Receiver, startReceiver } from './receiver';

describe('PATCH /webhooks/{id}', () => {
  let receiver: Receiver;
  let owner: { userId: number; apiKey: string };
  const X = 'modelAccessApproved';
  const Y = 'modelAccessDenied';

  beforeAll(async () => {
    receiver = await startReceiver();
    owner = await createKey('update-owner');
  });
  afterAll(async () => {
    await receiver.close();
  });

  const hook = (name: string, types: string[]) => ({
    name,
    url: receiver.url(`/${name}`),
    global: false,
    notificationType: types,
    actionType: 'triggered',
  });

  it('changes routing at once: the old type stops, the new type arrives at the new URL', async () => {
    const [id] = await createHooks(owner.apiKey, [hook('route-old', [X])]);
    const before = await call('GET', `/webhooks/${id}`, { key: owner.apiKey });
    await publish({ notificationType: X, text: 'before', recipients: [owner.userId] });
    await untilCount(() => receiver.byPath('/route-old').length, 1, 'delivery before the change');

    const patched = await call('PATCH', `/webhooks/${id}`, {
      key: owner.apiKey,
      body: { notificationType: [Y], url: receiver.url('/route-new'), name: 'route-new' },
    });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body).toMatchObject({
      id,
      name: 'route-new',
      url: receiver.url('/route-new'),
      notificationType: [Y],
      status: 'enabled',
      createdAt: before.body.createdAt,
    });
    expect(Date.parse(patched.body.updatedAt)).toBeGreaterThanOrEqual(Date.parse(before.body.updatedAt));
    expect(patched.body.updatedAt).not.toBe(before.body.updatedAt);

    const oldType = await publish({ notificationType: X, text: 'old type', recipients: [owner.userId] });
    const newType = await publish({ notificationType: Y, text: 'new type', recipients: [owner.userId] });
    expect(await fannedOutTo(oldType.messageId)).not.toContain(id);
    expect(await fannedOutTo(newType.messageId)).toContain(id);
    await untilCount(() => receiver.byPath('/route-new').length, 1, 'delivery to the new URL');
    const [delivered] = receiver.byPath('/route-new');
    expect(JSON.parse(delivered?.body ?? '{}')).toMatchObject({ text: 'new type', webhookName: 'route-new' });
    expect(receiver.byPath('/route-old')).toHaveLength(1);
  });

  it('sends a queued retry to the URL in force when it is attempted', async () => {
    // The old URL holds every request until the PATCH is done (the delivery's timeout makes it a
    // failure), so the retry is queued while the URL changes; no attempt after it goes there.
    let patchedAt = Number.POSITIVE_INFINITY;
    let release: () => void = () => {};
    const patched = new Promise<void>((r) => {
      release = r;
    });
    receiver.on('/queued-old', (_req, _body, res) => {
      void patched.then(() => res.writeHead(500).end());
      return 500;
    });
    const [id] = await createHooks(owner.apiKey, [hook('queued-old', [X])]);
    await publish({ notificationType: X, text: 'queued', recipients: [owner.userId] });
    await untilCount(() => receiver.byPath('/queued-old').length, 1, 'the first attempt');
    const reply = await call('PATCH', `/webhooks/${id}`, {
      key: owner.apiKey,
      body: { url: receiver.url('/queued-new') },
    });
    expect(reply.status, reply.text).toBe(200);
    patchedAt = Date.now();
    release();
    await untilCount(() => receiver.byPath('/queued-new').length, 1, 'the retry at the new URL');
    const [retried] = receiver.byPath('/queued-new');
    expect(JSON.parse(retried?.body ?? '{}')).toMatchObject({ text: 'queued' });
    expect(retried?.headers['webhook-id']).toBe(receiver.byPath('/queued-old')[0]?.headers['webhook-id']);
    expect(receiver.byPath('/queued-old').every((r) => r.at < patchedAt)).toBe(true);
  });

  it('refuses bad input with a 400 naming the field, and changes nothing', async () => {
    const [id] = await createHooks(owner.apiKey, [hook('bad-input', [X])]);
    const stored = (await call('GET', `/webhooks/${id}`, { key: owner.apiKey })).body;
    const cases: [unknown, RegExp][] = [
      [{}, /at least one/],
      [{ colour: 'red' }, /colour/],
      [{ secret: 'x'.repeat(20) }, /secret/],
      [{ global: true }, /body\.global/],
      [{ notificationType: ['userCreated'] }, /body\.notificationType/],
      [{ notificationType: ['ALL_NOTIFICATIONS'] }, /body\.notificationType/],
      [{ url: 'not a url' }, /url/],
      [{ url: 'ftp://example.com/x' }, /url/],
      [{ url: 'http://user:pw@example.com/x' }, /body\.url/],
      [{ name: 'a\nb' }, /name/],
      [{ maxDeliveriesPerSecond: 0 }, /maxDeliveriesPerSecond/],
      // Below one delivery per 100 s: 1e-300 was a 500 (DynamoDB refused the number), 1e-100 was
      // stored and stalled every delivery (issue 34, item 13).
      [{ maxDeliveriesPerSecond: 1e-300 }, /maxDeliveriesPerSecond/],
      [{ maxDeliveriesPerSecond: 1e-100 }, /maxDeliveriesPerSecond/],
      [{ maxDeliveriesPerSecond: 0.001 }, /maxDeliveriesPerSecond/],
    ];
    for (const [body, message] of cases) {
      const reply = await call('PATCH', `/webhooks/${id}`, { key: owner.apiKey, body });
      expect(reply.status, `${JSON.stringify(body)} → ${reply.text}`).toBe(400);
      expect(reply.body.message).toMatch(message);
    }
    expect((await call('GET', `/webhooks/${id}`, { key: owner.apiKey })).body).toEqual(stored);
  });

  it('keeps one URL per user: a URL another webhook of the owner uses is a 409', async () => {
    const [a, b] = await createHooks(owner.apiKey, [hook('url-a', [X]), hook('url-b', [X])]);
    const reply = await call('PATCH', `/webhooks/${b}`, {
      key: owner.apiKey,
      body: { url: `${receiver.url('/url-a')}/#fragment` },
    });
    expect(reply.status, reply.text).toBe(409);
    expect(reply.body.message).toMatch(/body\.url/);
    // Its own URL again, or a free one, is fine; the freed URL can then be taken.
    const moved = await call('PATCH', `/webhooks/${a}`, {
      key: owner.apiKey,
      body: { url: receiver.url('/url-c') },
    });
    expect(moved.status, moved.text).toBe(200);
    const taken = await call('PATCH', `/webhooks/${b}`, {
      key: owner.apiKey,
      body: { url: receiver.url('/url-a') },
    });
    expect(taken.status, taken.text).toBe(200);
  });

  it('lets a user change only their own webhooks (others answer 404) and an admin anyone’s', async () => {
    const other = await createKey('update-other');
    const [id] = await createHooks(owner.apiKey, [hook('owned', [X])]);
    expect(
      (await call('PATCH', `/webhooks/${id}`, { key: other.apiKey, body: { name: 'mine' } })).status,
    ).toBe(404);
    const admin = await call('PATCH', `/webhooks/${id}`, {
      body: { name: 'renamed by admin', maxDeliveriesPerSecond: 5 },
    });
    expect(admin.status, admin.text).toBe(200);
    expect(admin.body).toMatchObject({
      name: 'renamed by admin',
      maxDeliveriesPerSecond: 5,
      createdBy: owner.userId,
    });
    const cleared = await call('PATCH', `/webhooks/${id}`, {
      key: owner.apiKey,
      body: { maxDeliveriesPerSecond: null },
    });
    expect(cleared.body.maxDeliveriesPerSecond).toBeUndefined();
  });

  it("judges global and system events by the owner's permissions too: an admin cannot hand them to a user (issue 34, item 17)", async () => {
    const user = await createKey('update-not-admin');
    const admin = await createKey('update-admin', true);
    const [id] = await createHooks(user.apiKey, [hook('users-own', [X])]);
    const refused: [unknown, RegExp][] = [
      [{ global: true }, /^body\.global: .*owner/],
      [{ notificationType: ['userCreated'] }, /^body\.notificationType: .*owner/],
      [{ notificationType: ['ALL_NOTIFICATIONS'] }, /^body\.notificationType: .*owner/],
    ];
    const stored = (await call('GET', `/webhooks/${id}`, { key: user.apiKey })).body;
    for (const [body, message] of refused) {
      const reply = await call('PATCH', `/webhooks/${id}`, { key: admin.apiKey, body });
      expect(reply.status, `${JSON.stringify(body)} → ${reply.text}`).toBe(400);
      expect(reply.body.message).toMatch(message);
    }
    expect((await call('GET', `/webhooks/${id}`, { key: user.apiKey })).body).toEqual(stored);
    // Anything else an admin may still change on it; and on an admin's own webhook, global is fine.
    expect(
      (await call('PATCH', `/webhooks/${id}`, { key: admin.apiKey, body: { name: 'by admin' } })).status,
    ).toBe(200);
    const [adminsOwn] = await createHooks(admin.apiKey, [hook('admins-own', [X])]);
    const global = await call('PATCH', `/webhooks/${adminsOwn}`, {
      key: admin.apiKey,
      body: { global: true, notificationType: ['userCreated'] },
    });
    expect(global.status, global.text).toBe(200);

    // A user's webhook made global before the rule (stored so directly): its owner cannot point it
    // anywhere else while it is global, only make it personal again.
    useLocalCloudEnv();
    const { changeWebhook } = await import('../../../shared/webhooks/lifecycle');
    await changeWebhook(id as number, (current) => ({ ...current, global: true }));
    const moved = await call('PATCH', `/webhooks/${id}`, {
      key: user.apiKey,
      body: { url: receiver.url('/users-own-elsewhere') },
    });
    expect(moved.status, moved.text).toBe(400);
    expect(moved.body.message).toMatch(/^body\.global: /);
    const personal = await call('PATCH', `/webhooks/${id}`, { key: user.apiKey, body: { global: false } });
    expect(personal.status, personal.text).toBe(200);
    expect(personal.body.global).toBe(false);
  });

  it('applies racing PATCH, disable, enable and delete in some serial order: never a webhook without its subscription items, or items without it', async () => {
    useLocalCloudEnv();
    const { documentClient } = await import('../../../shared/store/clients');
    const { tableName } = await import('../../../shared/store/tables');
    const { activeSubscriptionKeys } = await import('../../../shared/webhooks/store/webhooks');
    const subscriptionsOf = async (id: number) => {
      const out = await documentClient.send(
        new ScanCommand({
          TableName: tableName('webhookSubscriptions'),
          FilterExpression: 'webhookId = :id',
          ExpressionAttributeValues: { ':id': id },
          ConsistentRead: true,
        }),
      );
      return (out.Items ?? []).map((item) => item.subscriptionKey as string).sort();
    };
    const typeSets = [[X], [Y], [X, Y, 'modelCommentCreated'], ['queryCreated', 'queryUpdated']];
    for (let round = 0; round < 6; round++) {
      const [id] = await createHooks(owner.apiKey, [hook(`race-${round}`, [X])]);
      const requests = [
        ...typeSets.map((types) =>
          call('PATCH', `/webhooks/${id}`, { key: owner.apiKey, body: { notificationType: types } }),
        ),
        call('POST', `/webhooks/${id}/disable`, { key: owner.apiKey }),
        call('POST', `/webhooks/${id}/enable`, { key: owner.apiKey }),
        call('PATCH', `/webhooks/${id}`, { key: owner.apiKey, body: { notificationType: [Y] } }),
        ...(round % 2 === 0 ? [call('DELETE', `/webhooks/${id}`, { key: owner.apiKey })] : []),
      ];
      const replies = await Promise.all(requests);
      for (const reply of replies) expect([200, 404], reply.text).toContain(reply.status);
      const now = await call('GET', `/webhooks/${id}`, { key: owner.apiKey });
      const items = await subscriptionsOf(id as number);
      if (now.status === 404) {
        expect(items).toEqual([]);
      } else {
        const { getWebhookItem } = await import('../../../shared/webhooks/store/webhooks');
        const stored = await getWebhookItem(id as number, true);
        expect(stored).toBeDefined();
        expect(items).toEqual(activeSubscriptionKeys(stored as NonNullable<typeof stored>).sort());
      }
    }
  });
});
