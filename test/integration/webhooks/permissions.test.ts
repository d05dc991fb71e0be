import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createKey } from '../../support/api';

let hooks = 0;
// A URL of its own per entry: one user may have one webhook per URL.
const hook = (over: Record<string, unknown> = {}) => ({
  url: `http://127.0.0.1:9/hook/${++hooks}`,
  name: 'hook',
  global: false,
  notificationType: ['modelAccessRequested'],
  actionType: 'triggered',
  ...over,
});

describe('webhook permissions and visibility', () => {
  let alice: { userId: number; apiKey: string };
  let bob: { userId: number; apiKey: string };
  let alicesHook: number;
  let adminsHook: number;

  beforeAll(async () => {
    alice = await createKey('alice-webhooks');
    bob = await createKey('bob-webhooks');
    const created = await call('POST', '/webhooks', {
      key: `Bearer ${alice.apiKey}`,
      body: {
        webhooks: [
          hook({ name: 'mine', secret: 'super-secret-value' }),
          hook({ name: 'global', global: true }),
          hook({ name: 'system', notificationType: ['userCreated', 'modelAccessDenied'] }),
          hook({ name: 'wildcard', notificationType: ['ALL_NOTIFICATIONS'] }),
          hook({ name: 'bad-url', url: 'ftp://example.com/x' }),
          { name: 'missing fields' },
        ],
      },
    });
    expect(created.status).toBe(201);
    expect(created.body.createdWebhooks).toHaveLength(1);
    alicesHook = created.body.createdWebhooks[0].id;
    const admin = await call('POST', '/webhooks', {
      body: { webhooks: [hook({ name: 'admin-global', global: true, notificationType: ['userCreated'] })] },
    });
    expect(admin.status).toBe(201);
    adminsHook = admin.body.createdWebhooks[0].id;
  });

  afterAll(async () => {
    await call('DELETE', `/webhooks/${adminsHook}`);
  });

  it('reports every rejected entry in errors, saying which and why, and creates the valid one', async () => {
    const again = await call('POST', '/webhooks', {
      key: alice.apiKey,
      body: {
        webhooks: [
          hook({ name: 'ok-2' }),
          hook({ name: 'global', global: true }),
          hook({ name: 'system', notificationType: ['userCreated'] }),
        ],
      },
    });
    expect(again.status).toBe(201);
    expect(again.body.createdWebhooks.map((w: { name: string }) => w.name)).toEqual(['ok-2']);
    expect(again.body.errors).toEqual([
      expect.objectContaining({ index: 1, name: 'global', message: expect.stringMatching(/global/) }),
      expect.objectContaining({ index: 2, name: 'system', message: expect.stringMatching(/userCreated/) }),
    ]);
    await call('DELETE', `/webhooks/${again.body.createdWebhooks[0].id}`, { key: alice.apiKey });
  });

  it('answers 422 with the errors when nothing could be created, and 400 for a malformed body', async () => {
    const none = await call('POST', '/webhooks', {
      key: alice.apiKey,
      body: { webhooks: [hook({ global: true })] },
    });
    expect(none.status).toBe(422);
    expect(none.body).toMatchObject({ statusCode: 422, error: 'Unprocessable Entity', createdWebhooks: [] });
    expect(none.body.errors).toHaveLength(1);
    const malformed = await call('POST', '/webhooks', { key: alice.apiKey, body: { webhooks: 'nope' } });
    expect(malformed.status).toBe(400);
    const tooMany = await call('POST', '/webhooks', {
      key: alice.apiKey,
      body: { webhooks: Array.from({ length: 51 }, () => hook()) },
    });
    expect(tooMany.status).toBe(400);
  });

  it('never returns the secret', async () => {
    const got = await call('GET', `/webhooks/${alicesHook}`, { key: alice.apiKey });
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({ id: alicesHook, name: 'mine', global: false, createdBy: alice.userId });
    expect(got.text).not.toContain('super-secret-value');
    expect(got.body).not.toHaveProperty('secret');
    const list = await call('GET', '/webhooks', { key: alice.apiKey });
    expect(list.text).not.toContain('super-secret-value');
  });

  it('lists only the caller’s own webhooks to users and every webhook to admins', async () => {
    const mine = await call('GET', '/webhooks', { key: alice.apiKey });
    expect(mine.body.map((w: { id: number }) => w.id)).toEqual([alicesHook]);
    const bobs = await call('GET', '/webhooks', { key: bob.apiKey });
    expect(bobs.body).toEqual([]);
    const all = await call('GET', '/webhooks');
    const ids = all.body.map((w: { id: number }) => w.id);
    expect(ids).toEqual(expect.arrayContaining([alicesHook, adminsHook]));
  });

  it('answers 404 for another user’s webhook, its deletion, its history and its retry', async () => {
    expect((await call('GET', `/webhooks/${alicesHook}`, { key: bob.apiKey })).status).toBe(404);
    expect((await call('DELETE', `/webhooks/${alicesHook}`, { key: bob.apiKey })).status).toBe(404);
    expect((await call('GET', `/webhooks/${adminsHook}`, { key: bob.apiKey })).status).toBe(404);
    const history = await call('GET', '/webhooks/history?includeGlobal=true', { key: bob.apiKey });
    expect(history.body).toEqual({ count: 0, records: [] });
    expect((await call('GET', `/webhooks/${alicesHook}`, { key: alice.apiKey })).status).toBe(200);
  });

  it('lists the valid actions', async () => {
    const actions = await call('GET', '/webhooks/actions', { key: bob.apiKey });
    expect(actions.status).toBe(200);
    expect(actions.body[0]).toBe('ALL_NOTIFICATIONS');
    expect(actions.body).toContain('modelAccessRequested');
    expect(actions.body).toContain('governanceSettingsUpdated');
  });

  it('deletes the owner’s webhook and returns it', async () => {
    const deleted = await call('DELETE', `/webhooks/${alicesHook}`, { key: alice.apiKey });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toMatchObject({ id: alicesHook, name: 'mine', actionType: 'triggered' });
    expect((await call('GET', `/webhooks/${alicesHook}`, { key: alice.apiKey })).status).toBe(404);
  });

  it('validates history query parameters', async () => {
    expect((await call('GET', '/webhooks/history?pageSize=101', { key: bob.apiKey })).status).toBe(400);
    expect((await call('GET', '/webhooks/history?successOrFailure=maybe', { key: bob.apiKey })).status).toBe(
      400,
    );
    expect((await call('GET', '/webhooks/history?sortField=statusCode', { key: bob.apiKey })).status).toBe(
      400,
    );
    expect((await call('GET', '/webhooks/history?bogus=1', { key: bob.apiKey })).status).toBe(400);
  });
});
