/**
 * Canary secrets: every secret this file sends (integration credentials of every type,
 * privileged delete credentials, webhook signing secrets) is a unique canary string. After
 * every read route and every workflow path — create, edit, delete, and the failures the sandbox
 * triggers (unreachable host, half-way bootstrap, half-way teardown) — and a signed delivery,
 * no canary may appear in any response body, in the local cloud's log, or in any Step Functions
 * execution record (the workflow inputs and outputs).
 */
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type RouteDef, routes } from '../../shared/catalog/routes';
import { objectStore, put, registered } from '../integration/data-sources/helpers';
import { type Receiver, startReceiver } from '../integration/webhooks/receiver';
import { adminKey, baseUrl, createKey, eventually, useLocalCloudEnv } from '../support/api';
import { deleteBodies, type Payload, payloads, serviceAccount, uid } from '../unit/integrations/fixtures';
import { type Reply, request } from './support';

const canaries: string[] = [];
const bodies: string[] = [];
const SECRET_KEY = /password|secret|token|privatekey|clientsecret|secretaccesskey|secretkey|sessiontoken/i;

function canary(label: string): string {
  const value = `CANARY${randomBytes(9).toString('hex')}${label.replace(/[^A-Za-z]/g, '').slice(0, 8)}`;
  canaries.push(value);
  return value;
}

/** Replaces every secret-looking value with a canary (the service-account key included). */
function withCanaries(payload: Payload, overrides: Record<string, string> = {}): Payload {
  const copy = structuredClone(payload);
  const visit = (node: Record<string, unknown>) => {
    for (const [k, v] of Object.entries(node)) {
      if (typeof v === 'string' && k in overrides) node[k] = overrides[k];
      else if (typeof v === 'string' && SECRET_KEY.test(k)) node[k] = canary(k);
      else if (v && typeof v === 'object') visit(v as Record<string, unknown>);
    }
  };
  visit(copy);
  if (copy.type === 'DatasetWarehouse') {
    copy.config.credential = serviceAccount(`proj-${uid()}`, canary('pk'));
  }
  return copy;
}

async function api(method: string, path: string, body?: unknown, key = adminKey()): Promise<Reply> {
  const reply = await request(baseUrl(), method, path, { key, ...(body !== undefined ? { body } : {}) });
  bodies.push(reply.text);
  return reply;
}

const SETTLED = new Set(['enabled', 'createError', 'editError', 'deleteError', 'deleted', 'disabled']);
async function settle(id: string): Promise<string> {
  const reply = await eventually(
    () => api('GET', `/integrations/${id}/status`),
    (r) => SETTLED.has(r.body?.status),
    20_000,
  );
  return reply.body?.status;
}

let receiver: Receiver;
const integrationIds: string[] = [];
let webhookId = 0;
/** A `v1a` webhook's published key set path. */
let keySetPath = '';
let user: { userId: number; apiKey: string };

beforeAll(async () => {
  receiver = await startReceiver();
  user = await createKey('canary-user');
});

afterAll(async () => {
  await receiver?.close();
});

describe('canary secrets', () => {
  it('run every workflow path with canary credentials', async () => {
    const all = payloads(uid());
    await Promise.all(
      Object.entries(all).map(async ([type, payload]) => {
        const created = await api('POST', '/integrations', withCanaries(payload));
        expect(created.status, `${type}: ${created.text}`).toBe(202);
        const id = String(created.body.id);
        integrationIds.push(id);
        expect(await settle(id)).toBe('enabled');
        if (type === 'FederatedSql') return;
        const read = await api('GET', `/integrations/${id}`);
        const edited = await api('PUT', `/integrations/${id}`, {
          type,
          autoBootstrap: payload.autoBootstrap,
          config: withCanaries({ config: read.body.config }).config,
        });
        if (edited.status === 202) expect(await settle(id)).toBe('enabled');
        else expect(edited.status, `${type} edit: ${edited.text}`).toBe(400);
        const credentials = payload.autoBootstrap ? withCanaries(deleteBodies(uid())[type] ?? {}) : undefined;
        const deleted = await api('DELETE', `/integrations/${id}`, credentials);
        expect(deleted.status, `${type} delete: ${deleted.text}`).toBe(202);
        expect(await settle(id)).toBe('deleted');
      }),
    );
  });

  it('run the failure paths with canary credentials', async () => {
    const fresh = payloads(uid());
    // Unreachable host: validation fails synchronously (422).
    const unreachable = withCanaries(fresh.ClusterWarehouse as Payload);
    unreachable.config.host = `cl-${uid()}.unreachable.example`;
    const refused = await api('POST', '/integrations', unreachable);
    expect(refused.status, refused.text).toBe(422);
    // Half-way bootstrap: the workflow ends in createError.
    const bootstrap = withCanaries(fresh.AnalyticsWarehouse as Payload, { username: 'fail-bootstrap' });
    const failing = await api('POST', '/integrations', bootstrap);
    expect(failing.status, failing.text).toBe(202);
    expect(await settle(String(failing.body.id))).toBe('createError');
    // Half-way teardown: deleteError, with canary integration secrets and the trigger password.
    const teardown = withCanaries(fresh.CloudWarehouse as Payload);
    const created = await api('POST', '/integrations', teardown);
    expect(created.status, created.text).toBe(202);
    const id = String(created.body.id);
    expect(await settle(id)).toBe('enabled');
    const credentials = {
      ...withCanaries(deleteBodies(uid()).CloudWarehouse as Payload),
      password: 'fail-teardown',
    };
    const deleted = await api('DELETE', `/integrations/${id}`, credentials);
    expect(deleted.status, deleted.text).toBe(202);
    expect(await settle(id)).toBe('deleteError');
    integrationIds.push(id, String(failing.body.id));
  });

  it('deliver a signed notification to a webhook with a canary secret', async () => {
    const created = await api(
      'POST',
      '/webhooks',
      {
        webhooks: [
          {
            url: receiver.url('/canary'),
            name: 'canary',
            global: false,
            notificationType: ['modelAccessRequested'],
            actionType: 'triggered',
            secret: canary('webhook'),
          },
        ],
      },
      user.apiKey,
    );
    expect(created.status, created.text).toBe(201);
    webhookId = created.body.createdWebhooks[0].id;
    useLocalCloudEnv();
    const { publishNotification } = await import('../../shared/notifications/publisher');
    await publishNotification({
      notificationType: 'modelAccessRequested',
      text: 'canary delivery',
      recipients: [user.userId],
    });
    const delivered = await eventually(
      async () => receiver.byPath('/canary').length,
      (n) => n >= 1,
      15_000,
    );
    expect(delivered).toBeGreaterThanOrEqual(1);
    expect(receiver.byPath('/canary')[0]?.headers['webhook-signature']).toMatch(/^v1,/);
  });

  it('deliver a notification signed v1a, whose secret key (read from the store) is a canary too', async () => {
    const created = await api(
      'POST',
      '/webhooks',
      {
        webhooks: [
          {
            url: receiver.url('/canary-v1a'),
            name: 'canary v1a',
            global: false,
            notificationType: ['modelAccessRequested'],
            actionType: 'triggered',
            signatureScheme: 'v1a',
          },
        ],
      },
      user.apiKey,
    );
    expect(created.status, created.text).toBe(201);
    const id = created.body.createdWebhooks[0].id as number;
    keySetPath = new URL(created.body.createdWebhooks[0].jwksUrl).pathname;
    useLocalCloudEnv();
    const { getWebhookItem } = await import('../../shared/webhooks/store/webhooks');
    const { openWebhookSigningKey } = await import('../../shared/webhooks/secrets');
    const stored = await getWebhookItem(id);
    const secretKey = await openWebhookSigningKey(id, stored?.signingKey as string);
    expect(secretKey).toMatch(/^whsk_/);
    // The key as written and its bare seed (base64, and base64url as a JWK `d` would be).
    const seed = Buffer.from(secretKey.slice(5), 'base64');
    canaries.push(secretKey, seed.toString('base64'), seed.toString('base64url'));
    // Rotated once, so the replaced key signs beside the new one.
    const rotated = await api('POST', `/webhooks/${id}/secret/rotate`, undefined, user.apiKey);
    expect(rotated.status, rotated.text).toBe(200);
    const { publishNotification } = await import('../../shared/notifications/publisher');
    await publishNotification({
      notificationType: 'modelAccessRequested',
      text: 'canary v1a delivery',
      recipients: [user.userId],
    });
    const delivered = await eventually(
      async () => receiver.byPath('/canary-v1a').length,
      (n) => n >= 1,
      15_000,
    );
    expect(delivered).toBeGreaterThanOrEqual(1);
    expect(receiver.byPath('/canary-v1a')[0]?.headers['webhook-signature']).toMatch(/^v1a,\S+ v1a,/);
  });

  it('read every GET route', async () => {
    const history = await eventually(
      () => api('GET', '/webhooks/history', undefined, user.apiKey),
      (r) => (r.body?.records ?? []).length >= 1,
      10_000,
    );
    const historyId = history.body.records[0]?.id;
    // A recover job of the webhook, so its status route is read too.
    const recover = await api(
      'POST',
      `/webhooks/${webhookId}/recover`,
      { since: new Date(Date.now() - 3_600_000).toISOString() },
      user.apiKey,
    );
    expect(recover.status, recover.text).toBe(202);
    // A data source, so its own routes are read too.
    const store = await objectStore();
    await put(store, `${store.location}canary/object.csv`);
    const dataSourceId = await registered(store, `canary-${uid()}`, `${store.location}canary/`);
    const ids: Record<string, string | number> = {};
    for (const route of routes as readonly RouteDef[]) {
      if (route.method !== 'GET') continue;
      const webhookRoute = route.path.startsWith('/webhooks');
      const targets = !route.path.includes('{id}')
        ? ['']
        : webhookRoute
          ? [webhookId]
          : route.path.startsWith('/data-sources')
            ? [dataSourceId]
            : integrationIds;
      for (const id of targets) {
        const path = route.path.includes('{keySetId}')
          ? keySetPath
          : route.path.replace('{id}', String(id)).replace('{jobId}', recover.body.jobId);
        const asUser = webhookRoute ? user.apiKey : adminKey();
        const reply = await api('GET', path, undefined, asUser);
        expect(reply.status, `${path}: ${reply.text.slice(0, 200)}`).toBeLessThan(300);
        ids[path] = id;
      }
    }
    const retried = await api('POST', `/webhooks/history/retry/${historyId}`, undefined, user.apiKey);
    expect(retried.status, retried.text).toBe(201);
  });

  it('find no canary in responses, the cloud log or the execution records', () => {
    expect(canaries.length).toBeGreaterThan(15);
    const executionsDir = join(inject('stateDir'), 'executions');
    const executions = readdirSync(executionsDir)
      .filter((f) => f.endsWith('.json'))
      .map((f) => readFileSync(join(executionsDir, f), 'utf8'));
    expect(executions.length).toBeGreaterThan(0);
    const log = readFileSync(inject('logFile'), 'utf8');
    const places: [string, string[]][] = [
      ['response bodies', bodies],
      ['cloud log', [log]],
      ['execution records', executions],
    ];
    const leaks: string[] = [];
    for (const value of canaries) {
      const forms = [value, Buffer.from(value).toString('base64')];
      for (const [place, texts] of places) {
        if (texts.some((t) => forms.some((f) => t.includes(f))))
          leaks.push(`${value.slice(0, 14)}… in ${place}`);
      }
    }
    expect(leaks).toEqual([]);
  });
});
