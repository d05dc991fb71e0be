/**
 * Amplification limits (issue 13, finding 2), against the suite's local cloud: a user's
 * webhook quota and the same-URL limit hold, also when requests race, and GET /webhooks pages
 * without changing the answer of callers who send no paging parameters.
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadStage } from '../../infra/stages';
import { adminKey, baseUrl, createKey } from '../support/api';
import { expectErrorShape, request } from './support';

const limits = loadStage('local').webhookLimits;

const hook = (path: string) => ({
  url: `https://hooks.example.com/${path}`,
  name: `limit ${path}`,
  global: false,
  notificationType: ['modelAccessRequested'],
  actionType: 'triggered',
});

describe('webhook limits', () => {
  let user: { userId: number; apiKey: string };
  beforeAll(async () => {
    user = await createKey(`limits-${randomUUID().slice(0, 8)}`);
  });

  it(`stops a user at ${limits.perUser} webhooks, naming the limit, and frees a slot on delete`, async () => {
    const run = randomUUID();
    const full = await request(baseUrl(), 'POST', '/webhooks', {
      key: user.apiKey,
      body: { webhooks: Array.from({ length: limits.perUser }, (_, i) => hook(`${run}/${i}`)) },
    });
    expect(full.status).toBe(201);
    expect(full.body.createdWebhooks).toHaveLength(limits.perUser);

    const over = await request(baseUrl(), 'POST', '/webhooks', {
      key: user.apiKey,
      body: { webhooks: [hook(`${run}/over-1`), hook(`${run}/over-2`)] },
    });
    expect(over.status).toBe(422);
    expectErrorShape(over, 'quota');
    expect(over.body.errors).toEqual([
      expect.objectContaining({
        index: 0,
        message: expect.stringContaining(`at most ${limits.perUser} webhooks`),
      }),
      expect.objectContaining({
        index: 1,
        message: expect.stringContaining(`at most ${limits.perUser} webhooks`),
      }),
    ]);

    const first = full.body.createdWebhooks[0].id;
    expect((await request(baseUrl(), 'DELETE', `/webhooks/${first}`, { key: user.apiKey })).status).toBe(200);
    const again = await request(baseUrl(), 'POST', '/webhooks', {
      key: user.apiKey,
      body: { webhooks: [hook(`${run}/after-delete`)] },
    });
    expect(again.status).toBe(201);
    const mine = await request(baseUrl(), 'GET', '/webhooks', { key: user.apiKey });
    expect(mine.body).toHaveLength(limits.perUser);
  });

  it('lets one user have one webhook per URL, also when requests race', async () => {
    const owner = await createKey(`same-url-${randomUUID().slice(0, 8)}`);
    const url = `same/${randomUUID()}`;
    const inOneRequest = await request(baseUrl(), 'POST', '/webhooks', {
      key: owner.apiKey,
      body: { webhooks: [hook(url), hook(url)] },
    });
    expect(inOneRequest.status).toBe(201);
    expect(inOneRequest.body.createdWebhooks).toHaveLength(limits.perUrl);
    expect(inOneRequest.body.errors).toEqual([
      expect.objectContaining({
        index: 1,
        message: `at most ${limits.perUrl} webhook of one user may use the same URL`,
      }),
    ]);

    const raced = `race/${randomUUID()}`;
    const replies = await Promise.all(
      Array.from({ length: 8 }, () =>
        request(baseUrl(), 'POST', '/webhooks', { key: owner.apiKey, body: { webhooks: [hook(raced)] } }),
      ),
    );
    expect(replies.filter((r) => r.status === 201)).toHaveLength(limits.perUrl);
    expect(replies.filter((r) => r.status === 422)).toHaveLength(8 - limits.perUrl);

    // Another user may still use the URL.
    const other = await createKey(`same-url-other-${randomUUID().slice(0, 8)}`);
    const theirs = await request(baseUrl(), 'POST', '/webhooks', {
      key: other.apiKey,
      body: { webhooks: [hook(raced)] },
    });
    expect(theirs.status).toBe(201);
  });

  it('creates racing webhooks of one user on different URLs, all of them (their counters conflict, nothing fails)', async () => {
    const owner = await createKey(`racing-${randomUUID().slice(0, 8)}`);
    const replies = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        request(baseUrl(), 'POST', '/webhooks', {
          key: owner.apiKey,
          body: { webhooks: [hook(`racing/${i}/${randomUUID()}`)] },
        }),
      ),
    );
    expect(replies.map((r) => r.status)).toEqual(replies.map(() => 201));
    const mine = await request(baseUrl(), 'GET', '/webhooks', { key: owner.apiKey });
    expect(mine.body).toHaveLength(12);
  });

  it('counts the variants of one URL as that URL (issue 24, finding 5)', async () => {
    const owner = await createKey(`url-variants-${randomUUID().slice(0, 8)}`);
    const path = `variants/${randomUUID()}`;
    const first = await request(baseUrl(), 'POST', '/webhooks', {
      key: owner.apiKey,
      body: { webhooks: [hook(path)] },
    });
    expect(first.status).toBe(201);
    const variants = [
      `https://hooks.example.com/${path}#fragment`,
      `https://hooks.example.com/${path}/`,
      `https://hooks.example.com//${path}`,
      `https://hooks.example.com/${path.replace('v', '%76')}`,
      `https://hooks.example.com./${path}`,
      `https://HOOKS.Example.com/${path}`,
      `https://hooks.example.com:443/${path}`,
      `https://hooks.example.com/${path}?`,
      `https://hooks.example.com/x/../${path}`,
    ];
    const again = await request(baseUrl(), 'POST', '/webhooks', {
      key: owner.apiKey,
      body: { webhooks: variants.map((url, i) => ({ ...hook(path), name: `variant ${i}`, url })) },
    });
    expect(again.status).toBe(422);
    expect(again.body.errors).toEqual(
      variants.map((url, index) =>
        expect.objectContaining({
          index,
          url,
          message: `at most ${limits.perUrl} webhook of one user may use the same URL`,
        }),
      ),
    );
    // The query is part of the URL (receivers may route on it): another query is another URL.
    const query = await request(baseUrl(), 'POST', '/webhooks', {
      key: owner.apiKey,
      body: { webhooks: [{ ...hook(path), url: `https://hooks.example.com/${path}?tenant=2` }] },
    });
    expect(query.status).toBe(201);
  });

  it('pages GET /webhooks with pageSize and nextToken; without them the answer is the full array', async () => {
    const owner = await createKey(`pages-${randomUUID().slice(0, 8)}`);
    const run = randomUUID();
    const created = await request(baseUrl(), 'POST', '/webhooks', {
      key: owner.apiKey,
      body: { webhooks: Array.from({ length: 7 }, (_, i) => hook(`${run}/${i}`)) },
    });
    const ids: number[] = created.body.createdWebhooks.map((w: { id: number }) => w.id);

    const plain = await request(baseUrl(), 'GET', '/webhooks', { key: owner.apiKey });
    expect(plain.status).toBe(200);
    expect(plain.body.map((w: { id: number }) => w.id)).toEqual(ids);

    const seen: number[] = [];
    let token: string | undefined;
    do {
      const query = `pageSize=3${token ? `&nextToken=${encodeURIComponent(token)}` : ''}`;
      const page = await request(baseUrl(), 'GET', `/webhooks?${query}`, { key: owner.apiKey });
      expect(page.status).toBe(200);
      expect(page.body.webhooks.length).toBeLessThanOrEqual(3);
      seen.push(...page.body.webhooks.map((w: { id: number }) => w.id));
      token = page.body.nextToken;
    } while (token);
    expect(seen).toEqual(ids);

    // Admins page the whole table: every id once.
    const adminSeen: number[] = [];
    token = undefined;
    do {
      const query = `pageSize=50${token ? `&nextToken=${encodeURIComponent(token)}` : ''}`;
      const page = await request(baseUrl(), 'GET', `/webhooks?${query}`, { key: adminKey() });
      adminSeen.push(...page.body.webhooks.map((w: { id: number }) => w.id));
      token = page.body.nextToken;
    } while (token);
    expect(new Set(adminSeen).size).toBe(adminSeen.length);
    expect(adminSeen).toEqual(expect.arrayContaining(ids));

    // A token is not a way into another owner's webhooks, and garbage is a 400 naming the field.
    const forged = Buffer.from(JSON.stringify({ createdBy: user.userId, id: 0 })).toString('base64url');
    for (const bad of [forged, 'not-a-token']) {
      const reply = await request(baseUrl(), 'GET', `/webhooks?nextToken=${bad}`, { key: owner.apiKey });
      expect(reply.status).toBe(400);
      expectErrorShape(reply, 'nextToken');
      expect(reply.body.message).toContain('query.nextToken');
    }
  });
});
