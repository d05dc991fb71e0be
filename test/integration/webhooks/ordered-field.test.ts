/**
 * The webhook's `ordered` field (issue 41, step 2; ADR 0020) through the local cloud: optional on
 * create (default false) and PATCH, always shown by create, GET, both list shapes and PATCH; a
 * value that is not a boolean refused naming `ordered`. The webhook's subscription items carry
 * `ordered: true` exactly while it is ordered — written on create, added with a new type, put back
 * by enable, rewritten when a PATCH switches it either way — and fan-out's page of subscriptions
 * (`subscriptionPage`, what step 3 routes by) answers it. The delivery behaviour is step 3's.
 */
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createKey, useLocalCloudEnv } from '../../support/api';
import { createHooks } from './helpers';
import { type Receiver, startReceiver } from './receiver';

const X = 'modelAccessRequested';
const Y = 'modelAccessApproved';
const Z = 'modelAccessRevoked';

/** The webhook's subscription items, by key, as stored (strongly consistent). */
async function subscriptionItems(webhookId: number): Promise<Record<string, Record<string, unknown>>> {
  useLocalCloudEnv();
  const { documentClient } = await import('../../../shared/store/clients');
  const { tableName } = await import('../../../shared/store/tables');
  const items: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const out = await documentClient.send(
      new ScanCommand({
        TableName: tableName('webhookSubscriptions'),
        FilterExpression: 'webhookId = :id',
        ExpressionAttributeValues: { ':id': webhookId },
        ConsistentRead: true,
        ExclusiveStartKey: start,
      }),
    );
    items.push(...(out.Items ?? []));
    start = out.LastEvaluatedKey;
  } while (start);
  return Object.fromEntries(items.map((item) => [item.subscriptionKey as string, item]));
}

/** What each of the webhook's subscription items says of `ordered` (undefined: not there). */
const orderedOnItems = async (webhookId: number) =>
  Object.fromEntries(
    Object.entries(await subscriptionItems(webhookId)).map(([key, item]) => [key, item.ordered]),
  );

describe('the ordered field of webhooks', () => {
  let receiver: Receiver;
  let owner: { userId: number; apiKey: string };
  const keyOf = (type: string) => `${type}#user#${owner.userId}`;

  beforeAll(async () => {
    receiver = await startReceiver();
    owner = await createKey('ordered-field-owner');
  });
  afterAll(async () => {
    await receiver.close();
  });

  const hook = (name: string, extra: Record<string, unknown> = {}) => ({
    name,
    url: receiver.url(`/ordered-field/${name}`),
    global: false,
    notificationType: [X, Y],
    actionType: 'triggered',
    ...extra,
  });

  it('is false unless created true, and create, GET and both list shapes show it', async () => {
    const created = await call('POST', '/webhooks', {
      key: owner.apiKey,
      body: {
        webhooks: [
          hook('ordered-on', { ordered: true }),
          hook('ordered-off', { ordered: false }),
          hook('unset'),
        ],
      },
    });
    expect(created.status, created.text).toBe(201);
    const views = created.body.createdWebhooks as { id: number; ordered: unknown }[];
    expect(views.map((w) => w.ordered)).toEqual([true, false, false]);
    const [on, off, unset] = views.map((w) => w.id) as [number, number, number];

    for (const [id, ordered] of [
      [on, true],
      [off, false],
      [unset, false],
    ] as const) {
      const read = await call('GET', `/webhooks/${id}`, { key: owner.apiKey });
      expect(read.status, read.text).toBe(200);
      expect(read.body.ordered, `GET ${id}`).toBe(ordered);
    }
    const list = await call('GET', '/webhooks', { key: owner.apiKey });
    const page = await call('GET', '/webhooks?pageSize=100', { key: owner.apiKey });
    for (const shown of [list.body, page.body.webhooks] as { id: number; ordered: unknown }[][]) {
      const byId = new Map(shown.map((w) => [w.id, w.ordered]));
      expect([byId.get(on), byId.get(off), byId.get(unset)]).toEqual([true, false, false]);
    }
  });

  it('PATCH turns it on and off, and a PATCH without it keeps it', async () => {
    const [id] = (await createHooks(owner.apiKey, [hook('patched')])) as [number];
    const on = await call('PATCH', `/webhooks/${id}`, { key: owner.apiKey, body: { ordered: true } });
    expect(on.status, on.text).toBe(200);
    expect(on.body.ordered).toBe(true);
    const renamed = await call('PATCH', `/webhooks/${id}`, {
      key: owner.apiKey,
      body: { name: 'patched 2' },
    });
    expect(renamed.status, renamed.text).toBe(200);
    expect(renamed.body.ordered).toBe(true);
    expect((await call('GET', `/webhooks/${id}`, { key: owner.apiKey })).body.ordered).toBe(true);
    const off = await call('PATCH', `/webhooks/${id}`, { key: owner.apiKey, body: { ordered: false } });
    expect(off.status, off.text).toBe(200);
    expect(off.body.ordered).toBe(false);
    expect((await call('GET', `/webhooks/${id}`, { key: owner.apiKey })).body.ordered).toBe(false);
  });

  it('refuses a value that is not a boolean, naming ordered', async () => {
    const [id] = (await createHooks(owner.apiKey, [hook('typed')])) as [number];
    for (const ordered of ['true', 1, null, {}]) {
      const patched = await call('PATCH', `/webhooks/${id}`, { key: owner.apiKey, body: { ordered } });
      expect(patched.status, `${JSON.stringify(ordered)} → ${patched.text}`).toBe(400);
      expect(patched.body.message).toMatch(/\bordered: must be true or false/);
    }
    expect((await call('GET', `/webhooks/${id}`, { key: owner.apiKey })).body.ordered).toBe(false);
    // Create checks entry by entry: the entry is refused naming the field, the others are created.
    const created = await call('POST', '/webhooks', {
      key: owner.apiKey,
      body: { webhooks: [hook('typed-bad', { ordered: 'yes' }), hook('typed-good', { ordered: true })] },
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body.errors).toEqual([
      expect.objectContaining({ index: 0, message: expect.stringMatching(/^ordered: /) }),
    ]);
    expect(created.body.createdWebhooks.map((w: { name: string }) => w.name)).toEqual(['typed-good']);
    // Alone, it is the create route's refusal of every entry.
    const alone = await call('POST', '/webhooks', {
      key: owner.apiKey,
      body: { webhooks: [hook('typed-alone', { ordered: 0 })] },
    });
    expect(alone.status, alone.text).toBe(422);
    expect(alone.body.errors[0].message).toMatch(/^ordered: /);
    // The PATCH's empty-body message names it among the fields.
    const empty = await call('PATCH', `/webhooks/${id}`, { key: owner.apiKey, body: {} });
    expect(empty.status, empty.text).toBe(400);
    expect(empty.body.message).toContain('signatureScheme, ordered');
  });

  it("an ordered webhook's subscription items carry ordered: true, and lose it when it is turned off", async () => {
    const [ordered, plain] = (await createHooks(owner.apiKey, [
      hook('items-ordered', { ordered: true }),
      hook('items-plain'),
    ])) as [number, number];
    expect(await orderedOnItems(ordered)).toEqual({ [keyOf(X)]: true, [keyOf(Y)]: true });
    expect(await orderedOnItems(plain)).toEqual({ [keyOf(X)]: undefined, [keyOf(Y)]: undefined });

    // A type added to an ordered webhook: its new item carries it as well.
    const widened = await call('PATCH', `/webhooks/${ordered}`, {
      key: owner.apiKey,
      body: { notificationType: [X, Y, Z] },
    });
    expect(widened.status, widened.text).toBe(200);
    expect(await orderedOnItems(ordered)).toEqual({ [keyOf(X)]: true, [keyOf(Y)]: true, [keyOf(Z)]: true });

    // Off: every kept item is rewritten without it (nothing else in the PATCH moves them).
    const off = await call('PATCH', `/webhooks/${ordered}`, { key: owner.apiKey, body: { ordered: false } });
    expect(off.status, off.text).toBe(200);
    expect(await orderedOnItems(ordered)).toEqual({
      [keyOf(X)]: undefined,
      [keyOf(Y)]: undefined,
      [keyOf(Z)]: undefined,
    });
    // On again: rewritten with it.
    const on = await call('PATCH', `/webhooks/${plain}`, { key: owner.apiKey, body: { ordered: true } });
    expect(on.status, on.text).toBe(200);
    expect(await orderedOnItems(plain)).toEqual({ [keyOf(X)]: true, [keyOf(Y)]: true });

    // Disabled: no items; enabled again: they come back ordered.
    const disabled = await call('POST', `/webhooks/${plain}/disable`, { key: owner.apiKey, body: {} });
    expect(disabled.status, disabled.text).toBe(200);
    expect(await orderedOnItems(plain)).toEqual({});
    const enabled = await call('POST', `/webhooks/${plain}/enable`, { key: owner.apiKey });
    expect(enabled.status, enabled.text).toBe(200);
    expect(enabled.body.ordered).toBe(true);
    expect(await orderedOnItems(plain)).toEqual({ [keyOf(X)]: true, [keyOf(Y)]: true });
  });

  it('a filtered, ordered webhook: its items carry both, and turning ordered off keeps the filter', async () => {
    const filter = 'text.contains("ordered")';
    const [id] = (await createHooks(owner.apiKey, [hook('items-filtered', { ordered: true, filter })])) as [
      number,
    ];
    const items = await subscriptionItems(id);
    expect(items[keyOf(X)]).toMatchObject({ ordered: true, filter, webhookName: 'items-filtered' });
    const off = await call('PATCH', `/webhooks/${id}`, { key: owner.apiKey, body: { ordered: false } });
    expect(off.status, off.text).toBe(200);
    const after = await subscriptionItems(id);
    expect(after[keyOf(X)]).toMatchObject({ filter });
    expect(after[keyOf(X)]).not.toHaveProperty('ordered');
  });

  it("fan-out's subscription page answers ordered (the item's field, true or absent)", async () => {
    const own = await createKey('ordered-field-page');
    const [ordered, plain] = (await createHooks(own.apiKey, [
      { ...hook('page-ordered', { ordered: true }), notificationType: [X] },
      { ...hook('page-plain'), notificationType: [X] },
    ])) as [number, number];
    useLocalCloudEnv();
    const { subscriptionPage } = await import('../../../shared/webhooks/store/webhooks');
    const { subscriptions } = await subscriptionPage(`${X}#user#${own.userId}`, undefined, 10);
    expect(subscriptions).toEqual([{ webhookId: ordered, ordered: true }, { webhookId: plain }]);
  });
});
