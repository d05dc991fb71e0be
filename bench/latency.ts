/**
 * Figure 6 — API latency through the local gateway (authorizer + handler + DynamoDB Local, the
 * whole HTTP path) at concurrency 16, next to the floor: a raw GetItem (for the GET routes) or
 * PutItem (for POST /webhooks) loop against the same DynamoDB Local at the same concurrency.
 * Each route runs right after its floor so drift hits both alike.
 */
import { randomBytes } from 'node:crypto';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { Agent, request } from 'undici';
import { percentile, round, runPool } from './lib/stats';

interface LatencyRow {
  route: string;
  floor: 'GetItem' | 'PutItem';
  requests: number;
  p50Ms: number;
  p99Ms: number;
  floorP50Ms: number;
  floorP99Ms: number;
  p50Ratio: number;
  p99Ratio: number;
  non2xx: number;
}

export interface LatencyResult {
  concurrency: number;
  integrationType: string;
  rows: LatencyRow[];
}

async function http(
  agent: Agent,
  base: string,
  method: 'GET' | 'POST',
  path: string,
  key: string,
  body?: unknown,
): Promise<{ status: number; json: unknown }> {
  const res = await request(`${base}${path}`, {
    method,
    dispatcher: agent,
    headers: { authorization: key, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.body.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = text;
  }
  return { status: res.statusCode, json };
}

/** An integration to read: a config-bearing type if the sandbox accepts it, else FederatedSql. */
async function makeIntegration(
  agent: Agent,
  base: string,
  adminKey: string,
): Promise<{ id: string; type: string }> {
  const candidates = [
    {
      type: 'CloudWarehouse',
      autoBootstrap: true,
      config: {
        host: `bench-${randomBytes(4).toString('hex')}.example.com`,
        warehouse: 'COMPUTE_WH',
        database: 'CAUSEWAY_BENCH',
        authenticationType: 'userPassword',
        username: 'bench',
        password: `pw-${randomBytes(8).toString('hex')}`,
        role: 'ACCOUNTADMIN',
      },
    },
    { type: 'FederatedSql' },
  ];
  for (const body of candidates) {
    const res = await http(agent, base, 'POST', '/integrations', adminKey, body);
    const id = (res.json as { id?: string | number } | undefined)?.id;
    if (res.status < 300 && id !== undefined) return { id: String(id), type: body.type };
  }
  throw new Error('could not create an integration to read');
}

export async function apiLatency(options: {
  gateway: string;
  adminKey: string;
  requests: number;
  concurrency: number;
}): Promise<LatencyResult> {
  const { documentClient } = await import('../shared/store/clients');
  const { tableName } = await import('../shared/store/tables');
  const { createPrincipalWithKey } = await import('../shared/auth/keys');
  const agent = new Agent({ connections: options.concurrency, keepAliveTimeout: 4_000 });
  try {
    const base = options.gateway;
    const integration = await makeIntegration(agent, base, options.adminKey);
    const reader = await createPrincipalWithKey('bench-latency-reader', []);
    // One writer per create (warm-up included): a user may have 25 webhooks (stage webhookLimits),
    // so one writer would measure refusals after its 25th.
    const creates = options.requests + options.concurrency * 3;
    const writers: { apiKey: string }[] = new Array(creates);
    await runPool(creates, 8, async (i) => {
      writers[i] = await createPrincipalWithKey(`bench-latency-writer-${i}`, []);
    });
    const hook = (n: number) => ({
      url: `http://127.0.0.1:9/latency/${n}`,
      name: `latency ${n}`,
      global: false,
      notificationType: ['modelAccessRequested', 'modelAccessApproved'],
      actionType: 'triggered',
      secret: `whsec_${randomBytes(24).toString('base64')}`,
    });
    const seeded = await http(agent, base, 'POST', '/webhooks', reader.apiKey, {
      webhooks: [1, 2, 3, 4, 5].map(hook),
    });
    if (seeded.status >= 300) throw new Error(`seeding webhooks answered ${seeded.status}`);
    const integrationKey = { id: Number(integration.id) };
    const webhookItem = (n: number) => ({
      id: 90_000_000 + n,
      ...hook(n),
      notificationType: ['modelAccessRequested'],
      secret: randomBytes(96).toString('base64'),
      createdBy: 0,
      createdAt: new Date().toISOString(),
      updatedAt: new Date().toISOString(),
    });

    let putCounter = 0;
    let postCounter = 0;
    const cases = [
      {
        route: 'GET /integrations/{id}',
        floor: 'GetItem' as const,
        call: () => http(agent, base, 'GET', `/integrations/${integration.id}`, options.adminKey),
        raw: () =>
          documentClient.send(new GetCommand({ TableName: tableName('integrations'), Key: integrationKey })),
      },
      {
        route: 'GET /webhooks',
        floor: 'GetItem' as const,
        call: () => http(agent, base, 'GET', '/webhooks', reader.apiKey),
        raw: () =>
          documentClient.send(new GetCommand({ TableName: tableName('integrations'), Key: integrationKey })),
      },
      {
        route: 'POST /webhooks',
        floor: 'PutItem' as const,
        call: () => {
          const n = postCounter++;
          return http(agent, base, 'POST', '/webhooks', (writers[n] as { apiKey: string }).apiKey, {
            webhooks: [hook(n)],
          });
        },
        raw: () =>
          documentClient.send(
            new PutCommand({ TableName: tableName('webhooks'), Item: webhookItem(putCounter++) }),
          ),
      },
    ];
    const rows: LatencyRow[] = [];
    for (const c of cases) {
      // Warm-up (connections, module loading in the gateway), not measured.
      await runPool(options.concurrency * 3, options.concurrency, async () => {
        await c.raw();
        const res = await c.call();
        if (res.status < 200 || res.status >= 300)
          throw new Error(
            `${c.route} answered ${res.status} in the warm-up (${JSON.stringify(res.json).slice(0, 300)})`,
          );
      });
      const floor = await runPool(options.requests, options.concurrency, async () => {
        await c.raw();
      });
      let non2xx = 0;
      const api = await runPool(options.requests, options.concurrency, async () => {
        const res = await c.call();
        if (res.status < 200 || res.status >= 300) non2xx++;
        // A refusal's latency is not the route's: the figure would measure the wrong thing.
        if (non2xx === 1 && (res.status < 200 || res.status >= 300)) {
          throw new Error(`${c.route} answered ${res.status} (${JSON.stringify(res.json).slice(0, 300)})`);
        }
      });
      const p50 = percentile(api, 50);
      const p99 = percentile(api, 99);
      const f50 = percentile(floor, 50);
      const f99 = percentile(floor, 99);
      rows.push({
        route: c.route,
        floor: c.floor,
        requests: options.requests,
        p50Ms: round(p50),
        p99Ms: round(p99),
        floorP50Ms: round(f50),
        floorP99Ms: round(f99),
        p50Ratio: round(p50 / f50),
        p99Ratio: round(p99 / f99),
        non2xx,
      });
    }
    return { concurrency: options.concurrency, integrationType: integration.type, rows };
  } finally {
    await agent.close();
  }
}
