/**
 * The authorization matrix, generated from the route table: every non-public route refuses a
 * missing key and a revoked key (401), every admin route refuses a non-admin key (403), and
 * every route addressing a user-owned object by `{id}` answers another user's object with 404
 * (and leaves it untouched). A new route is covered by the generic checks automatically; the
 * inventory test makes adding one a conscious step (a new `{id}` route needs an owner fixture).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { type RouteDef, routeKey, routes } from '../../shared/catalog/routes';
import { baseUrl, createKey, revokeKeys, useLocalCloudEnv } from '../support/api';
import { expectErrorShape, request } from './support';

/** Every route this matrix was last reviewed against, with its auth level. */
const INVENTORY: Record<string, RouteDef['auth']> = {
  'GET /health': 'public',
  'GET /openapi.json': 'public',
  'GET /webhook-keys/{keySetId}': 'public',
  'GET /me': 'user',
  'GET /integrations': 'admin',
  'POST /integrations': 'admin',
  'GET /integrations/{id}': 'admin',
  'PUT /integrations/{id}': 'admin',
  'DELETE /integrations/{id}': 'admin',
  'GET /integrations/{id}/status': 'admin',
  'POST /integrations/{id}/regenerate': 'admin',
  'POST /integrations/{id}/repair': 'admin',
  'POST /integrations/scripts/initial-create': 'admin',
  'POST /integrations/scripts/create': 'admin',
  'POST /integrations/{id}/scripts/edit': 'admin',
  'POST /integrations/{id}/scripts/delete': 'admin',
  'POST /integrations/{id}/scripts/cleanup': 'admin',
  'POST /integrations/{id}/scripts/repair': 'admin',
  'POST /integrations/scripts/cleanup': 'admin',
  'POST /integrations/scripts/post-cleanup': 'admin',
  'POST /data-sources': 'admin',
  'GET /data-sources': 'admin',
  'GET /data-sources/{id}': 'admin',
  'DELETE /data-sources/{id}': 'admin',
  'POST /webhooks': 'user',
  'GET /webhooks': 'user',
  'GET /webhooks/actions': 'user',
  'GET /webhooks/aws-trust': 'user',
  'GET /webhooks/history': 'user',
  'GET /webhooks/{id}': 'user',
  'DELETE /webhooks/{id}': 'user',
  'PATCH /webhooks/{id}': 'user',
  'POST /webhooks/{id}/disable': 'user',
  'POST /webhooks/{id}/enable': 'user',
  'POST /webhooks/{id}/secret/rotate': 'user',
  'POST /webhooks/{id}/test': 'user',
  'POST /webhooks/{id}/recover': 'user',
  'GET /webhooks/{id}/recover/{jobId}': 'user',
  'GET /webhooks/{id}/ordering-keys': 'user',
  'POST /webhooks/{id}/ordering-keys/{key}/resume': 'user',
  'POST /webhooks/{id}/ordering-keys/{key}/skip': 'user',
  'POST /webhooks/filters/preview': 'user',
  'POST /webhooks/history/retry/{id}': 'user',
};

type OwnedKind = 'webhook' | 'historyRecord';

/** Non-admin routes with an `{id}`: which kind of user-owned object the id names. */
const OWNED: Record<string, OwnedKind> = {
  'GET /webhooks/{id}': 'webhook',
  'DELETE /webhooks/{id}': 'webhook',
  'PATCH /webhooks/{id}': 'webhook',
  'POST /webhooks/{id}/disable': 'webhook',
  'POST /webhooks/{id}/enable': 'webhook',
  'POST /webhooks/{id}/secret/rotate': 'webhook',
  'POST /webhooks/{id}/test': 'webhook',
  'POST /webhooks/{id}/recover': 'webhook',
  'GET /webhooks/{id}/recover/{jobId}': 'webhook',
  'GET /webhooks/{id}/ordering-keys': 'webhook',
  'POST /webhooks/{id}/ordering-keys/{key}/resume': 'webhook',
  'POST /webhooks/{id}/ordering-keys/{key}/skip': 'webhook',
  'POST /webhooks/history/retry/{id}': 'historyRecord',
};

/** A valid body for routes whose empty body would be refused (400) before ownership is checked. */
const BODIES: Record<string, unknown> = {
  'POST /webhooks/filters/preview': { filter: 'true' },
  'PATCH /webhooks/{id}': { name: 'taken over' },
  'POST /webhooks/{id}/recover': { since: new Date(Date.now() - 60_000).toISOString() },
};

const all = routes as readonly RouteDef[];
const protectedRoutes = all.filter((r) => r.auth !== 'public');
const adminRoutes = all.filter((r) => r.auth === 'admin');
// The published keys are public: their unguessable id is the access (ADR 0018).
const ownedRoutes = all.filter((r) => r.auth === 'user' && r.path.includes('{'));

/** The path with `id` for its object id (a well-formed job id for `{jobId}`). */
const withId = (route: RouteDef, id: string | number) =>
  route.path.replace('{jobId}', `rj_${'0'.repeat(32)}`).replace(/\{[^}]+\}/g, String(id));
const send = (route: RouteDef, key: string | null, id: string | number = 1) =>
  request(baseUrl(), route.method, withId(route, id), {
    key,
    ...(route.method === 'GET' ? {} : { body: BODIES[routeKey(route)] ?? {} }),
  });

let owner: { userId: number; apiKey: string };
let other: { userId: number; apiKey: string };
let revoked: { userId: number; apiKey: string };
const objects: Partial<Record<OwnedKind, number>> = {};
/** The key set of a `v1a` webhook, for the public keys route. */
let keySetId = '';

beforeAll(async () => {
  [owner, other, revoked] = await Promise.all([
    createKey('authz-owner'),
    createKey('authz-other'),
    createKey('authz-revoked', true),
  ]);
  await revokeKeys(revoked.userId);
  const created = await request(baseUrl(), 'POST', '/webhooks', {
    key: owner.apiKey,
    body: {
      webhooks: [
        {
          url: 'http://127.0.0.1:9/authz',
          name: 'authz owner webhook',
          global: false,
          notificationType: ['modelAccessRequested'],
          actionType: 'triggered',
        },
        {
          url: 'http://127.0.0.1:9/authz-v1a',
          name: 'authz v1a webhook',
          global: false,
          notificationType: ['modelAccessRequested'],
          actionType: 'triggered',
          signatureScheme: 'v1a',
        },
      ],
    },
  });
  expect(created.status, created.text).toBe(201);
  objects.webhook = created.body.createdWebhooks[0].id as number;
  keySetId = String(created.body.createdWebhooks[1].jwksUrl).split('/').pop() as string;
  useLocalCloudEnv();
  const { writeHistoryRecord } = await import('../../shared/webhooks/store/history');
  const record = await writeHistoryRecord({
    request: { text: 'authz', metadata: {}, webhookId: objects.webhook, webhookName: 'authz owner webhook' },
    response: { body: 'ok' },
    statusCode: 200,
    durationMs: 5,
    notificationType: 'modelAccessRequested',
    webhooksActivityId: 1,
    webhooksId: objects.webhook,
    url: 'http://127.0.0.1:9/authz',
    name: 'authz owner webhook',
    actionType: 'triggered',
    createdBy: owner.userId,
    deliveryId: `msg_${'0'.repeat(32)}_${objects.webhook}`,
    attempt: 1,
    global: false,
  });
  objects.historyRecord = record.id;
});

describe('route inventory', () => {
  it('is the reviewed set: a new route must be added here (and to OWNED if it addresses a user object)', () => {
    expect(Object.fromEntries(all.map((r) => [routeKey(r), r.auth]))).toEqual(INVENTORY);
  });

  it('has an owner fixture for every non-admin route with an {id}', () => {
    expect(ownedRoutes.map(routeKey).sort()).toEqual(Object.keys(OWNED).sort());
  });
});

describe('public routes answer without a key', () => {
  it.concurrent.each(all.filter((r) => r.auth === 'public').map((r) => [routeKey(r), r] as const))(
    '%s',
    async (_key, route) => {
      const reply = await send(route, null, route.path.includes('{keySetId}') ? keySetId : 1);
      expect(reply.status).toBe(200);
    },
  );

  it('a key set id that names none is a 404 in the error shape, with or without a key', async () => {
    const route = all.find((r) => r.path.includes('{keySetId}')) as RouteDef;
    for (const key of [null, owner.apiKey]) {
      const reply = await send(route, key, 'A'.repeat(22));
      expect(reply.status).toBe(404);
      expectErrorShape(reply, 'unknown key set');
    }
  });
});

describe.each(protectedRoutes.map((r) => [routeKey(r), r] as const))('%s', (_key, route) => {
  it.concurrent('no key → 401', async () => {
    const reply = await send(route, null);
    expect(reply.status).toBe(401);
    expectErrorShape(reply, 'no key');
  });

  it.concurrent('a revoked key → 401', async () => {
    const reply = await send(route, revoked.apiKey);
    expect(reply.status).toBe(401);
    expectErrorShape(reply, 'revoked key');
  });

  it.concurrent('a key that was never issued → 401', async () => {
    const reply = await send(route, `cw_${'x'.repeat(40)}`);
    expect(reply.status).toBe(401);
    expectErrorShape(reply, 'unknown key');
  });

  if (adminRoutes.includes(route)) {
    it.concurrent('a non-admin key → 403', async () => {
      const reply = await send(route, other.apiKey);
      expect(reply.status).toBe(403);
      expectErrorShape(reply, 'non-admin');
    });
  }

  const kind = OWNED[routeKey(route)];
  if (kind) {
    it("another user's object → 404, and the object is untouched", async () => {
      const id = objects[kind];
      expect(id).toBeTypeOf('number');
      const ownWebhook = () =>
        request(baseUrl(), 'GET', `/webhooks/${objects.webhook}`, { key: owner.apiKey });
      const before = await ownWebhook();
      const reply = await send(route, other.apiKey, id as number);
      expect(reply.status, reply.text).toBe(404);
      expectErrorShape(reply, 'other user');
      const own = await ownWebhook();
      expect(own.status).toBe(200);
      // Not renamed, disabled, re-keyed or otherwise changed (updatedAt would move). Its health
      // is left out: the history stream's counters may catch up with the fixture's record between
      // the two reads.
      const { health: _before, ...stateBefore } = before.body;
      const { health: _after, ...stateAfter } = own.body;
      expect(stateAfter).toEqual(stateBefore);
    });
  }
});

describe('POST /webhooks/filters/preview sees only what the caller may see', () => {
  it("evaluates the owner's notifications for the owner, and never for another user", async () => {
    const body = { filter: 'text == "authz" && webhookName == "authz owner webhook"', limit: 1000 };
    const mine = await request(baseUrl(), 'POST', '/webhooks/filters/preview', { key: owner.apiKey, body });
    expect(mine.status, mine.text).toBe(200);
    expect(mine.body.matching).toEqual([1]);
    const theirs = await request(baseUrl(), 'POST', '/webhooks/filters/preview', { key: other.apiKey, body });
    expect(theirs.status, theirs.text).toBe(200);
    expect(theirs.body).toMatchObject({ evaluated: 0, matched: 0, matching: [], notMatching: [] });
  });
});
