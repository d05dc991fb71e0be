/**
 * Every webhook route against a webhook in every state the service has (issue 34, item 1),
 * through the local cloud, which gives each function only the environment its catalog entry
 * grants: a route whose code path for some state needs a table, queue or function its entry does
 * not grant answers 500 here, as it would in AWS. Each route must answer a 2xx or a 4xx its
 * OpenAPI operation lists (`call` checks every answer against the document), both for the
 * webhook's owner and for an admin acting on it; the owner of a plain webhook, a 2xx.
 *
 * The routes come from the route table (tag `webhooks`): a new route fails the inventory test
 * until it has a case below. A state is one entry of STATES — what the webhook is created with
 * and what is done to it afterwards — so a new kind of webhook (ordered, `v1a`-signed, an AWS
 * destination) is one more entry, and every route runs against it.
 *
 * Each (state, caller, route) cell has a webhook of its own, made for it, so cells never see each
 * other's changes (a DELETE or a disable) and run concurrently; each state and caller has its own
 * owner (quotas and send limits are per user) and this file its own receiver.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { sandboxAwsCommand } from '../../../infra/cli/sandbox-aws';
import { type RouteDef, routeKey, routes } from '../../../shared/catalog/routes';
import { call, createKey, useLocalCloudEnv } from '../../support/api';
import { parkKeys } from '../../support/parked-keys';
import { createHooks } from './helpers';
import { type Receiver, startReceiver } from './receiver';

const TYPE = 'modelAccessRequested';

/** A webhook the cell's route is called on. */
interface Cell {
  webhookId: number;
  owner: { userId: number; apiKey: string };
  /** The key the route is called with: the owner's, or an admin's. */
  callerKey: string;
  /** A history record of the webhook (for the retry route). */
  recordId: number;
  /** A recover job of the webhook, when its state started one. */
  jobId?: string;
  /** An ordering key of the webhook that is not flowing, when its state stopped one. */
  orderingKey?: string;
  /** The create entry of this state (for POST /webhooks). */
  entry: Record<string, unknown>;
  /** A URL path of this file's receiver no other webhook of this owner uses. */
  freshPath(): string;
  /** A target no other webhook of this owner uses: `{url}`, or an AWS state's `{destination}`. */
  freshTarget(): Promise<Record<string, unknown>>;
}

interface WebhookState {
  /** Fields the webhook is created with, on top of a plain personal webhook. */
  create?: Record<string, unknown>;
  /** A fresh target of this kind for the owner (default: a URL of this file's receiver). */
  target?: (owner: { userId: number; apiKey: string }) => Promise<Record<string, unknown>>;
  /** What is done to it once created (by its owner, or as the service does it). */
  after?: (cell: Cell) => Promise<Partial<Cell> | undefined>;
}

/** Every state a webhook can be in. A new kind of webhook is one more entry here. */
const STATES: Record<string, WebhookState> = {
  plain: {},
  filtered: { create: { filter: 'has(metadata.projectName) && metadata.projectName.startsWith("F")' } },
  throttled: { create: { maxDeliveriesPerSecond: 2 } },
  // Ordered delivery per key (ADR 0020): its subscription items carry `ordered`.
  ordered: { create: { ordered: true } },
  // An ordered webhook with a parked key (its head ran out of the schedule), as the consumer parks it.
  parked: { create: { ordered: true }, after: (cell) => stopKey(cell, 'parked') },
  // Disabled, with a key held in the store while it was (enabling drains it).
  held: {
    create: { ordered: true },
    after: async (cell) => {
      const answer = await call('POST', `/webhooks/${cell.webhookId}/disable`, { key: cell.owner.apiKey });
      expect(answer.status, answer.text).toBe(200);
      return stopKey(cell, 'held');
    },
  },
  // Signed with an Ed25519 key pair, its public keys published (ADR 0018).
  v1a: { create: { signatureScheme: 'v1a', secret: undefined } },
  // Switched from HMAC to v1a: both credentials sign until the window ends (a rotation is a 409).
  switching: {
    create: { secret: `whsec_${Buffer.alloc(24, 5).toString('base64')}` },
    after: async (cell) => {
      const answer = await call('PATCH', `/webhooks/${cell.webhookId}`, {
        key: cell.owner.apiKey,
        body: { signatureScheme: 'v1a' },
      });
      expect(answer.status, answer.text).toBe(200);
      return undefined;
    },
  },
  disabled: {
    after: async (cell) => {
      const answer = await call('POST', `/webhooks/${cell.webhookId}/disable`, {
        key: cell.owner.apiKey,
        body: { reason: 'route matrix' },
      });
      expect(answer.status, answer.text).toBe(200);
      return undefined;
    },
  },
  autoDisabled: {
    // The transition the delivery consumer makes on a 410 answer.
    after: async (cell) => {
      useLocalCloudEnv();
      const { changeWebhook, disabling } = await import('../../../shared/webhooks/lifecycle');
      const result = await changeWebhook(cell.webhookId, disabling('gone', 'the receiver answered 410 Gone'));
      expect(result?.after.status).toBe('autoDisabled');
      return undefined;
    },
  },
  // Delivered into a queue of the sandbox AWS account by assuming the owner's role (ADR 0019).
  destination: { target: (owner) => sandboxDestination(owner, 'sqs') },
  // The same, into an SNS topic and onto an EventBridge bus.
  snsDestination: { target: (owner) => sandboxDestination(owner, 'sns') },
  busDestination: { target: (owner) => sandboxDestination(owner, 'eventbridge') },
  recovering: {
    after: async (cell) => {
      const answer = await call('POST', `/webhooks/${cell.webhookId}/recover`, {
        key: cell.owner.apiKey,
        body: { since: new Date(Date.now() - 3_600_000).toISOString(), onlyFailed: false },
      });
      expect(answer.status, answer.text).toBe(202);
      return { jobId: answer.body.jobId as string };
    },
  },
};

/** Stops an ordering key of the cell's webhook (a `/` in it, which its routes take as `%2F`). */
async function stopKey(cell: Cell, state: 'parked' | 'held'): Promise<Partial<Cell>> {
  const orderingKey = `tenant/${cell.webhookId}`;
  await parkKeys(cell.webhookId, [[5, orderingKey]], 'route matrix', state);
  return { orderingKey };
}

const endpoints = inject('endpoints');
const stateDir = inject('stateDir');
const run = Math.random().toString(36).slice(2, 8);
const sandboxCli = async (...args: string[]) =>
  (await sandboxAwsCommand(args, endpoints.sandboxAccount, join(stateDir, 'sandbox'))).map((line) =>
    JSON.parse(line),
  );
const roles = new Map<number, Promise<string>>();
let queues = 0;

/** A new sandbox queue, topic or bus, sent to through the owner's role (made once, trusting their ExternalId). */
async function sandboxDestination(
  owner: { userId: number; apiKey: string },
  type: 'sqs' | 'sns' | 'eventbridge',
) {
  if (!roles.has(owner.userId))
    roles.set(
      owner.userId,
      (async () => {
        const trust = await call('GET', '/webhooks/aws-trust', { key: owner.apiKey });
        const [{ roleArn }] = await sandboxCli(
          'create-role',
          '--name',
          `route-states-${run}-${owner.userId}`,
          '--external-id',
          trust.body.externalId as string,
        );
        return roleArn as string;
      })(),
    );
  const roleArn = await (roles.get(owner.userId) as Promise<string>);
  const name = `route-states-${run}-${++queues}`;
  const [{ queueUrl }] = await sandboxCli('create-queue', '--name', name);
  if (type === 'sqs') return { destination: { type, queueUrl, roleArn } };
  if (type === 'sns') {
    const [{ topicArn }] = await sandboxCli('create-topic', '--name', name, '--queue', name);
    return { destination: { type, topicArn, roleArn } };
  }
  const [{ eventBusArn }] = await sandboxCli('create-bus', '--name', name, '--queue', name);
  return { destination: { type, eventBusArn, roleArn } };
}

/** A well-formed id of a job that does not exist. */
const NO_JOB = `rj_${'0'.repeat(32)}`;

interface RouteCase {
  /** The state whose owner must get the route's success (default `plain`). */
  succeedsOn?: string;
  /** Path (with query) and body of the request, for this cell. */
  request(cell: Cell): Promise<{ path: string; body?: unknown }> | { path: string; body?: unknown };
}

const since = () => new Date(Date.now() - 3_600_000).toISOString();

/** How every webhook route is called on a cell. A route without a case fails the inventory test. */
const CASES: Record<string, RouteCase> = {
  'POST /webhooks': {
    request: async (cell) => ({
      path: '/webhooks',
      body: { webhooks: [{ ...cell.entry, name: 'created by the matrix', ...(await cell.freshTarget()) }] },
    }),
  },
  // The owner's plain list; an admin's page (a plain admin list holds every test's webhooks).
  'GET /webhooks': {
    request: (cell) => ({
      path: cell.callerKey === cell.owner.apiKey ? '/webhooks' : '/webhooks?pageSize=20',
    }),
  },
  'GET /webhooks/actions': { request: () => ({ path: '/webhooks/actions' }) },
  // The caller's own ExternalId (ADR 0019), whatever their webhooks' states.
  'GET /webhooks/aws-trust': { request: () => ({ path: '/webhooks/aws-trust' }) },
  'GET /webhooks/history': {
    request: (cell) => ({ path: `/webhooks/history?webhookId=${cell.webhookId}&includeGlobal=true` }),
  },
  'GET /webhooks/{id}': { request: (cell) => ({ path: `/webhooks/${cell.webhookId}` }) },
  'DELETE /webhooks/{id}': { request: (cell) => ({ path: `/webhooks/${cell.webhookId}` }) },
  'PATCH /webhooks/{id}': {
    request: (cell) => ({ path: `/webhooks/${cell.webhookId}`, body: { name: 'renamed by the matrix' } }),
  },
  'POST /webhooks/{id}/disable': {
    request: (cell) => ({ path: `/webhooks/${cell.webhookId}/disable`, body: { reason: 'matrix' } }),
  },
  'POST /webhooks/{id}/enable': { request: (cell) => ({ path: `/webhooks/${cell.webhookId}/enable` }) },
  'POST /webhooks/{id}/secret/rotate': {
    request: (cell) => ({ path: `/webhooks/${cell.webhookId}/secret/rotate` }),
  },
  'POST /webhooks/{id}/test': { request: (cell) => ({ path: `/webhooks/${cell.webhookId}/test` }) },
  'POST /webhooks/{id}/recover': {
    request: (cell) => ({ path: `/webhooks/${cell.webhookId}/recover`, body: { since: since() } }),
  },
  'GET /webhooks/{id}/recover/{jobId}': {
    // The state's job, else one started for the cell (an enabled webhook), else none (404).
    request: async (cell) => {
      let jobId = cell.jobId;
      if (jobId === undefined) {
        const started = await call('POST', `/webhooks/${cell.webhookId}/recover`, {
          key: cell.owner.apiKey,
          body: { since: since() },
        });
        jobId = started.status === 202 ? (started.body.jobId as string) : NO_JOB;
      }
      return { path: `/webhooks/${cell.webhookId}/recover/${jobId}` };
    },
  },
  'GET /webhooks/{id}/ordering-keys': {
    request: (cell) => ({ path: `/webhooks/${cell.webhookId}/ordering-keys?state=parked` }),
  },
  // The state's parked key; a webhook without one answers 404.
  'POST /webhooks/{id}/ordering-keys/{key}/resume': {
    succeedsOn: 'parked',
    request: (cell) => ({
      path: `/webhooks/${cell.webhookId}/ordering-keys/${encodeURIComponent(cell.orderingKey ?? 'none')}/resume`,
    }),
  },
  'POST /webhooks/{id}/ordering-keys/{key}/skip': {
    succeedsOn: 'parked',
    request: (cell) => ({
      path: `/webhooks/${cell.webhookId}/ordering-keys/${encodeURIComponent(cell.orderingKey ?? 'none')}/skip`,
    }),
  },
  'GET /webhook-keys/{keySetId}': {
    // The webhook's published keys; a webhook that never had a key pair has none (a 404).
    succeedsOn: 'v1a',
    request: async (cell) => {
      const shown = await call('GET', `/webhooks/${cell.webhookId}`, { key: cell.owner.apiKey });
      const url = shown.body?.jwksUrl as string | undefined;
      return { path: url === undefined ? `/webhook-keys/${'A'.repeat(22)}` : new URL(url).pathname };
    },
  },
  'POST /webhooks/filters/preview': {
    request: () => ({ path: '/webhooks/filters/preview', body: { filter: 'has(metadata.projectName)' } }),
  },
  'POST /webhooks/history/retry/{id}': {
    request: (cell) => ({ path: `/webhooks/history/retry/${cell.recordId}` }),
  },
};

const webhookRoutes = (routes as readonly RouteDef[]).filter((route) => route.tag === 'webhooks');
const CALLERS = ['owner', 'admin'] as const;
type Caller = (typeof CALLERS)[number];

describe('every webhook route against a webhook in every state', () => {
  let receiver: Receiver;
  /** Per state and caller: the owner of the cells' webhooks, and the admin (one per state). */
  const owners = new Map<string, Promise<{ userId: number; apiKey: string }>>();
  const admins = new Map<string, Promise<{ userId: number; apiKey: string }>>();
  let paths = 0;

  beforeAll(async () => {
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver.close();
  });

  const ownerOf = (state: string, caller: Caller) => {
    const key = `${state}/${caller}`;
    if (!owners.has(key)) owners.set(key, createKey(`route-states-${state}-${caller}`));
    return owners.get(key) as Promise<{ userId: number; apiKey: string }>;
  };
  const adminOf = (state: string) => {
    if (!admins.has(state)) admins.set(state, createKey(`route-states-${state}-admin`, true));
    return admins.get(state) as Promise<{ userId: number; apiKey: string }>;
  };

  /** A webhook in `state`, its history record and whatever the state did to it. */
  async function cellFor(stateName: string, caller: Caller): Promise<Cell> {
    const state = STATES[stateName] as WebhookState;
    const owner = await ownerOf(stateName, caller);
    const freshPath = () => receiver.url(`/route-states/${stateName}/${caller}/${++paths}`);
    const freshTarget = async () => (state.target ? state.target(owner) : { url: freshPath() });
    const entry = {
      name: `${stateName} webhook`,
      global: false,
      notificationType: [TYPE],
      actionType: 'triggered',
      secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      ...state.create,
    };
    const [webhookId] = await createHooks(owner.apiKey, [{ ...entry, ...(await freshTarget()) }]);
    useLocalCloudEnv();
    const { writeHistoryRecord } = await import('../../../shared/webhooks/store/history');
    const record = await writeHistoryRecord({
      request: {
        text: 'route matrix',
        metadata: { notificationType: TYPE },
        webhookId: webhookId as number,
        webhookName: entry.name,
      },
      response: { body: 'unavailable' },
      statusCode: 503,
      durationMs: 3,
      notificationType: TYPE,
      webhooksActivityId: 1,
      webhooksId: webhookId as number,
      url: freshPath(),
      name: entry.name,
      actionType: 'triggered',
      createdBy: owner.userId,
      deliveryId: `msg_${'7'.repeat(32)}_${webhookId}`,
      attempt: 1,
      global: false,
    });
    const callerKey = caller === 'owner' ? owner.apiKey : (await adminOf(stateName)).apiKey;
    const cell: Cell = {
      webhookId: webhookId as number,
      owner,
      callerKey,
      recordId: record.id,
      entry,
      freshPath,
      freshTarget,
    };
    return { ...cell, ...(await state.after?.(cell)) };
  }

  it('has a case for every webhook route of the route table', () => {
    expect(webhookRoutes.map(routeKey).sort()).toEqual(Object.keys(CASES).sort());
  });

  const cells = Object.keys(STATES).flatMap((state) =>
    CALLERS.flatMap((caller) =>
      webhookRoutes.map((route) => [routeKey(route), state, caller, route] as const),
    ),
  );

  it.concurrent.each(cells)('%s on a %s webhook, as its %s', async (key, state, caller, route) => {
    const routeCase = CASES[key];
    if (!routeCase) throw new Error(`no case for ${key}`);
    const cell = await cellFor(state, caller);
    const { path, body } = await routeCase.request(cell);
    // `call` throws when the status (or body) is not one the operation documents.
    const answer = await call(route.method, path, {
      key: cell.callerKey,
      ...(body !== undefined ? { body } : {}),
    });
    expect(answer.status, `${key} → ${answer.status}: ${answer.text}`).toBeLessThan(500);
    // A plain webhook's owner gets each route's success (so a case cannot hide behind a 4xx;
    // the published keys: a v1a webhook's owner). An admin may get a 404: a personal webhook's
    // history records are its owner's alone.
    if (state === (routeCase.succeedsOn ?? 'plain') && caller === 'owner')
      expect(answer.status, `${key}: ${answer.text}`).toBeLessThan(300);
  });
});
