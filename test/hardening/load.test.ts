/**
 * Load: 50 concurrent clients mix reads and writes against the suite's local cloud for 60 s
 * (HARDENING_LOAD_SECONDS to change it). No answer may be a 5xx, and every write that was
 * answered 2xx must be readable afterwards (deleted webhooks must be gone).
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { adminKey, baseUrl, createKey } from '../support/api';
import { payloads, uid } from '../unit/integrations/fixtures';
import { type Reply, request } from './support';

const CLIENTS = 50;
const SECONDS = Number(process.env.HARDENING_LOAD_SECONDS ?? 60);

interface Client {
  key: string;
  admin: boolean;
  webhooks: number[];
  deleted: number[];
  integrations: string[];
}

const clients: Client[] = [];
const statuses = new Map<number, number>();
const serverErrors: string[] = [];

async function call(client: Client, method: string, path: string, body?: unknown): Promise<Reply> {
  const reply = await request(baseUrl(), method, path, {
    key: client.key,
    ...(body !== undefined ? { body } : {}),
  });
  statuses.set(reply.status, (statuses.get(reply.status) ?? 0) + 1);
  if (reply.status >= 500)
    serverErrors.push(`${method} ${path} → ${reply.status} ${reply.text.slice(0, 200)}`);
  return reply;
}

/** The ERROR lines the suite's cloud logged. */
function cloudErrors(): string[] {
  return readFileSync(inject('logFile'), 'utf8')
    .split('\n')
    .filter((line) => line.includes('"level":"ERROR"'))
    .map((line) => line.slice(0, 600));
}

const pick = <T>(list: readonly T[]): T | undefined => list[Math.floor(Math.random() * list.length)];

async function step(client: Client): Promise<void> {
  const roll = Math.random();
  if (roll < 0.2) {
    const created = await call(client, 'POST', '/webhooks', {
      webhooks: [
        {
          url: `http://127.0.0.1:9/load/${uid()}`,
          name: `load ${uid()}`,
          global: false,
          notificationType: ['modelAccessRequested', 'modelCommentCreated'],
          actionType: 'triggered',
          secret: randomBytes(12).toString('hex'),
        },
      ],
    });
    if (created.status === 201) client.webhooks.push(created.body.createdWebhooks[0].id);
  } else if (roll < 0.25 && client.webhooks.length > 1) {
    const id = client.webhooks.shift() as number;
    const deleted = await call(client, 'DELETE', `/webhooks/${id}`);
    if (deleted.status === 200) client.deleted.push(id);
    else client.webhooks.push(id);
  } else if (roll < 0.28 && client.admin) {
    const created = await call(client, 'POST', '/integrations', payloads(uid()).CloudWarehouse);
    if (created.status === 202) client.integrations.push(String(created.body.id));
  } else if (roll < 0.45) {
    await call(client, 'GET', '/webhooks');
  } else if (roll < 0.65) {
    const id = pick(client.webhooks);
    await call(client, 'GET', id === undefined ? '/webhooks/actions' : `/webhooks/${id}`);
  } else if (roll < 0.75) {
    await call(client, 'GET', '/webhooks/history?pageSize=20');
  } else if (roll < 0.85 && client.admin) {
    const id = pick(client.integrations);
    await call(client, 'GET', id === undefined ? '/integrations' : `/integrations/${id}`);
  } else {
    await call(client, 'GET', '/me');
  }
}

beforeAll(async () => {
  const keys = await Promise.all(Array.from({ length: CLIENTS - 5 }, (_, i) => createKey(`load-${i}`)));
  for (const k of keys)
    clients.push({ key: k.apiKey, admin: false, webhooks: [], deleted: [], integrations: [] });
  for (let i = 0; i < 5; i++) {
    clients.push({ key: adminKey(), admin: true, webhooks: [], deleted: [], integrations: [] });
  }
});

describe(`load: ${CLIENTS} clients for ${SECONDS} s`, () => {
  it('answers no 5xx and loses no acknowledged write', async () => {
    const deadline = Date.now() + SECONDS * 1000;
    await Promise.all(
      clients.map(async (client) => {
        while (Date.now() < deadline) await step(client);
      }),
    );
    const total = [...statuses.values()].reduce((a, b) => a + b, 0);
    expect(total).toBeGreaterThan(CLIENTS * 5);
    // The cloud's own account of each 5xx (its error log lines), so a failure says why.
    const causes = serverErrors.length > 0 ? cloudErrors() : [];
    expect(serverErrors.slice(0, 10), causes.slice(0, 10).join('\n')).toEqual([]);

    const lost: string[] = [];
    const created = clients.flatMap((c) => c.webhooks.map((id) => [c, id] as const));
    const gone = clients.flatMap((c) => c.deleted.map((id) => [c, id] as const));
    const integrations = clients.flatMap((c) => c.integrations.map((id) => [c, id] as const));
    expect(created.length).toBeGreaterThan(CLIENTS);
    const checks = [
      ...created.map(([c, id]) => async () => {
        const r = await request(baseUrl(), 'GET', `/webhooks/${id}`, { key: c.key });
        if (r.status !== 200) lost.push(`webhook ${id}: ${r.status}`);
      }),
      ...gone.map(([c, id]) => async () => {
        const r = await request(baseUrl(), 'GET', `/webhooks/${id}`, { key: c.key });
        if (r.status !== 404) lost.push(`deleted webhook ${id}: ${r.status}`);
      }),
      ...integrations.map(([c, id]) => async () => {
        const r = await request(baseUrl(), 'GET', `/integrations/${id}`, { key: c.key });
        if (r.status !== 200) lost.push(`integration ${id}: ${r.status}`);
      }),
    ];
    let next = 0;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        for (let i = next++; i < checks.length; i = next++) await checks[i]?.();
      }),
    );
    expect(lost).toEqual([]);
  });
});
