/**
 * The hardening load: concurrent API clients (five of them admins) mixing reads and writes
 * against one local cloud for a while, then every write that was answered 2xx read back
 * (deleted webhooks must be gone). `test/hardening/load.test.ts` runs it briefly in `npm test`
 * (a correctness run under concurrency); `npm run bench` runs the soak, 60 s (figure 15).
 */
import { randomBytes } from 'node:crypto';
import { payloads, uid } from '../unit/integrations/fixtures';
import { type Reply, request } from './support';

interface Client {
  key: string;
  admin: boolean;
  webhooks: number[];
  deleted: number[];
  integrations: string[];
}

export interface LoadOutcome {
  /** Answers per HTTP status during the load. */
  statuses: Map<number, number>;
  /** Every 5xx answer: request, status and the start of its body. */
  serverErrors: string[];
  /** Webhooks created and kept, webhooks deleted, integrations created (all acknowledged). */
  created: number;
  deleted: number;
  integrations: number;
  /** Acknowledged writes that did not read back as written. */
  lost: string[];
}

const pick = <T>(list: readonly T[]): T | undefined => list[Math.floor(Math.random() * list.length)];

/**
 * Runs `userKeys.length` user clients and five admin clients (`adminKey`) against `base` until
 * `seconds` have passed or the clients have sent `requests` requests between them, whichever
 * comes first, then reads back every acknowledged write, 16 at a time.
 */
export async function runLoad(options: {
  base: string;
  adminKey: string;
  userKeys: readonly string[];
  seconds?: number;
  requests?: number;
}): Promise<LoadOutcome> {
  const { base } = options;
  const statuses = new Map<number, number>();
  const serverErrors: string[] = [];
  const clients: Client[] = [
    ...options.userKeys.map((key) => ({ key, admin: false, webhooks: [], deleted: [], integrations: [] })),
    ...Array.from({ length: 5 }, () => ({
      key: options.adminKey,
      admin: true,
      webhooks: [],
      deleted: [],
      integrations: [],
    })),
  ];

  const call = async (client: Client, method: string, path: string, body?: unknown): Promise<Reply> => {
    const reply = await request(base, method, path, {
      key: client.key,
      ...(body !== undefined ? { body } : {}),
    });
    statuses.set(reply.status, (statuses.get(reply.status) ?? 0) + 1);
    if (reply.status >= 500)
      serverErrors.push(`${method} ${path} → ${reply.status} ${reply.text.slice(0, 200)}`);
    return reply;
  };

  const step = async (client: Client): Promise<void> => {
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
  };

  const deadline = Date.now() + (options.seconds ?? Number.POSITIVE_INFINITY) * 1000;
  const budget = options.requests ?? Number.POSITIVE_INFINITY;
  let sent = 0;
  await Promise.all(
    clients.map(async (client) => {
      while (Date.now() < deadline && sent < budget) {
        sent++;
        await step(client);
      }
    }),
  );

  const lost: string[] = [];
  const created = clients.flatMap((c) => c.webhooks.map((id) => [c, id] as const));
  const gone = clients.flatMap((c) => c.deleted.map((id) => [c, id] as const));
  const integrations = clients.flatMap((c) => c.integrations.map((id) => [c, id] as const));
  const checks = [
    ...created.map(([c, id]) => async () => {
      const r = await request(base, 'GET', `/webhooks/${id}`, { key: c.key });
      if (r.status !== 200) lost.push(`webhook ${id}: ${r.status}`);
    }),
    ...gone.map(([c, id]) => async () => {
      const r = await request(base, 'GET', `/webhooks/${id}`, { key: c.key });
      if (r.status !== 404) lost.push(`deleted webhook ${id}: ${r.status}`);
    }),
    ...integrations.map(([c, id]) => async () => {
      const r = await request(base, 'GET', `/integrations/${id}`, { key: c.key });
      if (r.status !== 200) lost.push(`integration ${id}: ${r.status}`);
    }),
  ];
  let next = 0;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      for (let i = next++; i < checks.length; i = next++) await checks[i]?.();
    }),
  );
  return {
    statuses,
    serverErrors,
    created: created.length,
    deleted: gone.length,
    integrations: integrations.length,
    lost,
  };
}
