/**
 * The route table: every HTTP route, the handler module that serves it, who may call it and
 * what AWS resources its function may touch. The CDK api construct makes one function per
 * row, the local gateway serves the same rows, the OpenAPI document and the authorization
 * tests are generated from it, and handlers look up their own row (by `event.routeKey`) to
 * re-check permissions. Each route's one-line summary (OpenAPI, function descriptions) is in
 * ./route-summaries.ts, keyed by route: the documentation stays out of the handler bundles.
 *
 * Keep this file free of runtime imports: every Lambda bundle includes it.
 *
 * Over 400 lines: one table, one row per route with its grants (a grant split from its route is
 * how a missing one goes unnoticed).
 */
import type { FunctionAccess } from './access';

type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * - `public`: no Authorization header needed (health, OpenAPI document);
 * - `user`: any valid API key;
 * - `admin`: a key whose principal has APPLICATION_ADMIN.
 */
type RouteAuth = 'public' | 'user' | 'admin';

export interface RouteDef extends FunctionAccess {
  readonly method: HttpMethod;
  /** API Gateway path with `{param}` placeholders. */
  readonly path: string;
  /** Handler module relative to the repository root; it exports `handler`. */
  readonly handler: string;
  readonly auth: RouteAuth;
  readonly tag: 'service' | 'integrations' | 'scripts' | 'webhooks';
  /** Overrides of the function defaults (timeout 10 s, memory 512 MB). */
  readonly timeoutSeconds?: number;
  readonly memoryMb?: number;
}

export const routes = [
  // ── service ──────────────────────────────────────────────────────────────────────────
  {
    method: 'GET',
    path: '/health',
    handler: 'functions/service/health.ts',
    auth: 'public',
    tag: 'service',
    tables: [{ table: 'counters', access: 'read' }],
  },
  {
    method: 'GET',
    path: '/openapi.json',
    handler: 'functions/service/openapi.ts',
    auth: 'public',
    tag: 'service',
  },
  {
    method: 'GET',
    path: '/me',
    handler: 'functions/service/me.ts',
    auth: 'user',
    tag: 'service',
  },
  // ── integrations (issue: integrations API) ───────────────────────────────────────────
  {
    method: 'GET',
    path: '/integrations',
    handler: 'functions/integrations/list.ts',
    auth: 'admin',
    tag: 'integrations',
    tables: [{ table: 'integrations', access: 'read' }],
    usesSecrets: true,
  },
  {
    method: 'POST',
    path: '/integrations',
    handler: 'functions/integrations/create.ts',
    auth: 'admin',
    tag: 'integrations',
    tables: [
      { table: 'integrations', access: 'readWrite' },
      { table: 'integrationClaims', access: 'readWrite' },
      { table: 'counters', access: 'readWrite' },
    ],
    startsWorkflow: true,
    usesSecrets: true,
    invokes: ['platformConnector'],
    timeoutSeconds: 30,
  },
  {
    method: 'GET',
    path: '/integrations/{id}',
    handler: 'functions/integrations/get.ts',
    auth: 'admin',
    tag: 'integrations',
    tables: [{ table: 'integrations', access: 'read' }],
    usesSecrets: true,
  },
  {
    method: 'PUT',
    path: '/integrations/{id}',
    handler: 'functions/integrations/update.ts',
    auth: 'admin',
    tag: 'integrations',
    tables: [
      { table: 'integrations', access: 'readWrite' },
      { table: 'integrationClaims', access: 'readWrite' },
    ],
    startsWorkflow: true,
    usesSecrets: true,
    invokes: ['platformConnector'],
    timeoutSeconds: 30,
  },
  {
    method: 'DELETE',
    path: '/integrations/{id}',
    handler: 'functions/integrations/delete.ts',
    auth: 'admin',
    tag: 'integrations',
    tables: [
      { table: 'integrations', access: 'readWrite' },
      { table: 'integrationClaims', access: 'readWrite' },
      { table: 'transientSecrets', access: 'readWrite' },
    ],
    startsWorkflow: true,
    usesSecrets: true,
    invokes: ['platformConnector'],
    timeoutSeconds: 30,
  },
  {
    method: 'GET',
    path: '/integrations/{id}/status',
    handler: 'functions/integrations/status.ts',
    auth: 'admin',
    tag: 'integrations',
    tables: [{ table: 'integrations', access: 'read' }],
  },
  {
    method: 'POST',
    path: '/integrations/{id}/regenerate',
    handler: 'functions/integrations/regenerate.ts',
    auth: 'admin',
    tag: 'integrations',
    tables: [{ table: 'integrations', access: 'readWrite' }],
  },
  {
    method: 'POST',
    path: '/integrations/{id}/repair',
    handler: 'functions/integrations/repair.ts',
    auth: 'admin',
    tag: 'integrations',
    tables: [{ table: 'integrations', access: 'readWrite' }],
    startsWorkflow: true,
  },
  // ── scripts (issue: setup scripts and connectors) ────────────────────────────────────
  {
    method: 'POST',
    path: '/integrations/scripts/initial-create',
    handler: 'functions/integrations/scripts/initial-create.ts',
    auth: 'admin',
    tag: 'scripts',
  },
  {
    method: 'POST',
    path: '/integrations/scripts/create',
    handler: 'functions/integrations/scripts/create.ts',
    auth: 'admin',
    tag: 'scripts',
  },
  {
    method: 'POST',
    path: '/integrations/{id}/scripts/edit',
    handler: 'functions/integrations/scripts/edit.ts',
    auth: 'admin',
    tag: 'scripts',
    tables: [{ table: 'integrations', access: 'read' }],
    usesSecrets: true,
  },
  {
    method: 'POST',
    path: '/integrations/{id}/scripts/delete',
    handler: 'functions/integrations/scripts/delete.ts',
    auth: 'admin',
    tag: 'scripts',
    tables: [{ table: 'integrations', access: 'read' }],
    usesSecrets: true,
  },
  {
    method: 'POST',
    path: '/integrations/scripts/cleanup',
    handler: 'functions/integrations/scripts/cleanup.ts',
    auth: 'admin',
    tag: 'scripts',
  },
  {
    method: 'POST',
    path: '/integrations/{id}/scripts/cleanup',
    handler: 'functions/integrations/scripts/stored-cleanup.ts',
    auth: 'admin',
    tag: 'scripts',
    tables: [{ table: 'integrations', access: 'read' }],
    usesSecrets: true,
  },
  {
    method: 'POST',
    path: '/integrations/{id}/scripts/repair',
    handler: 'functions/integrations/scripts/repair.ts',
    auth: 'admin',
    tag: 'scripts',
    tables: [{ table: 'integrations', access: 'read' }],
    usesSecrets: true,
  },
  {
    method: 'POST',
    path: '/integrations/scripts/post-cleanup',
    handler: 'functions/integrations/scripts/post-cleanup.ts',
    auth: 'admin',
    tag: 'scripts',
  },
  // ── webhooks (issue: webhooks) ───────────────────────────────────────────────────────
  {
    method: 'POST',
    path: '/webhooks',
    handler: 'functions/webhooks/create.ts',
    auth: 'user',
    tag: 'webhooks',
    tables: [
      { table: 'webhooks', access: 'readWrite' },
      { table: 'webhookSubscriptions', access: 'readWrite' },
      { table: 'counters', access: 'readWrite' },
    ],
    usesSecrets: true,
  },
  {
    method: 'GET',
    path: '/webhooks',
    handler: 'functions/webhooks/list.ts',
    auth: 'user',
    tag: 'webhooks',
    tables: [
      { table: 'webhooks', access: 'read' },
      // The health figures: the stream-kept counters, and a failing webhook's streak on its index.
      { table: 'deliveryCounts', access: 'read' },
      { table: 'deliveryHistory', access: 'read' },
    ],
  },
  {
    method: 'GET',
    path: '/webhooks/actions',
    handler: 'functions/webhooks/actions.ts',
    auth: 'user',
    tag: 'webhooks',
  },
  {
    method: 'GET',
    path: '/webhooks/history',
    handler: 'functions/webhooks/history.ts',
    auth: 'user',
    tag: 'webhooks',
    tables: [
      { table: 'deliveryHistory', access: 'read' },
      { table: 'deliveryCounts', access: 'read' },
      // `webhookId`: whose webhook it is, checked before its index is read.
      { table: 'webhooks', access: 'read' },
    ],
  },
  {
    method: 'GET',
    path: '/webhooks/{id}',
    handler: 'functions/webhooks/get.ts',
    auth: 'user',
    tag: 'webhooks',
    tables: [
      { table: 'webhooks', access: 'read' },
      // The health figures: the stream-kept counters, a failing webhook's streak on its index, and
      // the latency of its newest attempts (their records by key).
      { table: 'deliveryCounts', access: 'read' },
      { table: 'deliveryHistory', access: 'read' },
    ],
  },
  {
    method: 'DELETE',
    path: '/webhooks/{id}',
    handler: 'functions/webhooks/delete.ts',
    auth: 'user',
    tag: 'webhooks',
    tables: [
      { table: 'webhooks', access: 'readWrite' },
      { table: 'webhookSubscriptions', access: 'readWrite' },
      // The delete transaction gives the owner's quota and per-URL slots back.
      { table: 'counters', access: 'readWrite' },
    ],
  },
  {
    method: 'PATCH',
    path: '/webhooks/{id}',
    handler: 'functions/webhooks/update.ts',
    auth: 'user',
    tag: 'webhooks',
    tables: [
      { table: 'webhooks', access: 'readWrite' },
      { table: 'webhookSubscriptions', access: 'readWrite' },
      // A new URL moves the owner's per-URL counters in the same transaction.
      { table: 'counters', access: 'readWrite' },
      // An admin's change of another user's webhook: may the owner have a global one?
      { table: 'principals', access: 'read' },
    ],
  },
  {
    method: 'POST',
    path: '/webhooks/{id}/disable',
    handler: 'functions/webhooks/disable.ts',
    auth: 'user',
    tag: 'webhooks',
    tables: [
      { table: 'webhooks', access: 'readWrite' },
      { table: 'webhookSubscriptions', access: 'readWrite' },
    ],
  },
  {
    method: 'POST',
    path: '/webhooks/{id}/enable',
    handler: 'functions/webhooks/enable.ts',
    auth: 'user',
    tag: 'webhooks',
    tables: [
      { table: 'webhooks', access: 'readWrite' },
      { table: 'webhookSubscriptions', access: 'readWrite' },
    ],
  },
  {
    method: 'POST',
    path: '/webhooks/{id}/secret/rotate',
    handler: 'functions/webhooks/rotate-secret.ts',
    auth: 'user',
    tag: 'webhooks',
    tables: [
      { table: 'webhooks', access: 'readWrite' },
      // A filtered webhook's subscription items carry the version they were written at, so every
      // change of it, a rotation included, writes them again in the same transaction.
      { table: 'webhookSubscriptions', access: 'readWrite' },
    ],
    usesSecrets: true,
  },
  {
    method: 'POST',
    path: '/webhooks/{id}/test',
    handler: 'functions/webhooks/test.ts',
    auth: 'user',
    tag: 'webhooks',
    timeoutSeconds: 30,
    tables: [
      { table: 'webhooks', access: 'read' },
      // The per-user manual send counter (shared with manual retries).
      { table: 'counters', access: 'readWrite' },
    ],
    invokes: ['webhookSender'],
  },
  {
    method: 'POST',
    path: '/webhooks/{id}/recover',
    handler: 'functions/webhooks/recover.ts',
    auth: 'user',
    tag: 'webhooks',
    timeoutSeconds: 30,
    tables: [
      { table: 'webhooks', access: 'read' },
      // dryRun counts through the webhook's history index.
      { table: 'deliveryHistory', access: 'read' },
      { table: 'webhookJobs', access: 'readWrite' },
      // The caller's re-send budget, charged when a job starts.
      { table: 'counters', access: 'readWrite' },
    ],
    // The job's first step.
    sendsTo: ['recoveries'],
  },
  {
    method: 'GET',
    path: '/webhooks/{id}/recover/{jobId}',
    handler: 'functions/webhooks/recover-status.ts',
    auth: 'user',
    tag: 'webhooks',
    tables: [
      { table: 'webhooks', access: 'read' },
      { table: 'webhookJobs', access: 'read' },
    ],
  },
  {
    method: 'POST',
    path: '/webhooks/filters/preview',
    handler: 'functions/webhooks/preview-filter.ts',
    auth: 'user',
    tag: 'webhooks',
    // Up to 5,000 history index entries and 1,000 records by key.
    timeoutSeconds: 30,
    tables: [{ table: 'deliveryHistory', access: 'read' }],
  },
  {
    method: 'POST',
    path: '/webhooks/history/retry/{id}',
    handler: 'functions/webhooks/retry.ts',
    auth: 'user',
    tag: 'webhooks',
    timeoutSeconds: 30,
    tables: [
      { table: 'deliveryHistory', access: 'read' },
      // The per-user manual retry counter.
      { table: 'counters', access: 'readWrite' },
    ],
    invokes: ['webhookSender'],
  },
] as const satisfies readonly RouteDef[];

export type RouteKey = `${HttpMethod} ${string}`;

export function routeKey(route: Pick<RouteDef, 'method' | 'path'>): RouteKey {
  return `${route.method} ${route.path}`;
}

export function findRoute(key: string): RouteDef | undefined {
  return (routes as readonly RouteDef[]).find((r) => routeKey(r) === key);
}

/** A stable, CloudFormation-safe id for the route's function, e.g. `GetIntegrationsId`. */
export function routeFunctionId(route: Pick<RouteDef, 'method' | 'path'>): string {
  const words = route.path
    .split('/')
    .filter(Boolean)
    .map((seg) =>
      seg
        .replace(/[{}]/g, '')
        .replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ?? '').toUpperCase()),
    )
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1));
  const method = route.method.charAt(0) + route.method.slice(1).toLowerCase();
  return `${method}${words.join('')}`;
}
