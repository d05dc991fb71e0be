/**
 * The route table: every HTTP route, the handler module that serves it, who may call it and
 * what AWS resources its function may touch. The CDK api construct makes one function per
 * row, the local gateway serves the same rows, the OpenAPI document and the authorization
 * tests are generated from it, and handlers look up their own row (by `event.routeKey`) to
 * re-check permissions.
 *
 * Keep this file free of runtime imports: every Lambda bundle includes it.
 */
import type { FunctionAccess } from './access';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * - `public`: no Authorization header needed (health, OpenAPI document);
 * - `user`: any valid API key;
 * - `admin`: a key whose principal has APPLICATION_ADMIN.
 */
export type RouteAuth = 'public' | 'user' | 'admin';

export interface RouteDef extends FunctionAccess {
  readonly method: HttpMethod;
  /** API Gateway path with `{param}` placeholders. */
  readonly path: string;
  /** Handler module relative to the repository root; it exports `handler`. */
  readonly handler: string;
  readonly auth: RouteAuth;
  readonly summary: string;
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
    summary: 'Liveness and readiness: 200 with JSON once the service can reach its tables.',
    tag: 'service',
    tables: [{ table: 'counters', access: 'read' }],
  },
  {
    method: 'GET',
    path: '/openapi.json',
    handler: 'functions/service/openapi.ts',
    auth: 'public',
    summary: 'The OpenAPI 3.1 document of this API, generated from the route table and zod schemas.',
    tag: 'service',
  },
  {
    method: 'GET',
    path: '/me',
    handler: 'functions/service/me.ts',
    auth: 'user',
    summary: 'The principal behind the API key: user id, name and permissions.',
    tag: 'service',
  },
  // ── integrations (issue: integrations API) ───────────────────────────────────────────
  {
    method: 'GET',
    path: '/integrations',
    handler: 'functions/integrations/list.ts',
    auth: 'admin',
    summary: 'Every integration, config redacted.',
    tag: 'integrations',
    tables: [{ table: 'integrations', access: 'read' }],
    usesSecrets: true,
  },
  {
    method: 'POST',
    path: '/integrations',
    handler: 'functions/integrations/create.ts',
    auth: 'admin',
    summary:
      'Create an integration (JSON or YAML): validate, claim the host, start the lifecycle; dryRun validates only.',
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
    summary: 'One integration, config with defaults applied and secrets redacted.',
    tag: 'integrations',
    tables: [{ table: 'integrations', access: 'read' }],
    usesSecrets: true,
  },
  {
    method: 'PUT',
    path: '/integrations/{id}',
    handler: 'functions/integrations/update.ts',
    auth: 'admin',
    summary: 'Update an integration (or retry its failed creation); dryRun validates only.',
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
    summary:
      'Delete an integration (privileged credentials in the body when automatic); forceDisable, dryRun.',
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
    summary: 'The integration id (a number) and its status.',
    tag: 'integrations',
    tables: [{ table: 'integrations', access: 'read' }],
  },
  {
    method: 'POST',
    path: '/integrations/{id}/regenerate',
    handler: 'functions/integrations/regenerate.ts',
    auth: 'admin',
    summary: 'FederatedSql: issue a new cluster API key; returns it once with the configuration snippet.',
    tag: 'integrations',
    tables: [{ table: 'integrations', access: 'readWrite' }],
  },
  {
    method: 'POST',
    path: '/integrations/{id}/repair',
    handler: 'functions/integrations/repair.ts',
    auth: 'admin',
    summary:
      'Automatic integrations in recurringValidationError: re-run the setup steps the last check found missing (status editing), then check again.',
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
    summary:
      'First manual setup script (AnalyticsWarehouse: the login in master; ClusterWarehouse: user, groups and database).',
    tag: 'scripts',
  },
  {
    method: 'POST',
    path: '/integrations/scripts/create',
    handler: 'functions/integrations/scripts/create.ts',
    auth: 'admin',
    summary: 'Manual setup script; run it before POST /integrations with autoBootstrap false.',
    tag: 'scripts',
  },
  {
    method: 'POST',
    path: '/integrations/{id}/scripts/edit',
    handler: 'functions/integrations/scripts/edit.ts',
    auth: 'admin',
    summary: 'Script of the remote changes an edit needs; run it before PUT /integrations/{id}.',
    tag: 'scripts',
    tables: [{ table: 'integrations', access: 'read' }],
    usesSecrets: true,
  },
  {
    method: 'POST',
    path: '/integrations/{id}/scripts/delete',
    handler: 'functions/integrations/scripts/delete.ts',
    auth: 'admin',
    summary: 'Removal script for a created integration; run it before DELETE /integrations/{id}.',
    tag: 'scripts',
    tables: [{ table: 'integrations', access: 'read' }],
    usesSecrets: true,
  },
  {
    method: 'POST',
    path: '/integrations/scripts/cleanup',
    handler: 'functions/integrations/scripts/cleanup.ts',
    auth: 'admin',
    summary:
      'Removal script for an integration that failed to create (AnalyticsWarehouse: then post-cleanup).',
    tag: 'scripts',
  },
  {
    method: 'POST',
    path: '/integrations/{id}/scripts/cleanup',
    handler: 'functions/integrations/scripts/stored-cleanup.ts',
    auth: 'admin',
    summary:
      "Removal script for a stored integration: what its failed automatic setup left behind (when undoing it failed too), else everything its setup creates; never the operator's own accounts.",
    tag: 'scripts',
    tables: [{ table: 'integrations', access: 'read' }],
    usesSecrets: true,
  },
  {
    method: 'POST',
    path: '/integrations/{id}/scripts/repair',
    handler: 'functions/integrations/scripts/repair.ts',
    auth: 'admin',
    summary:
      "Script recreating exactly what the last periodic check found missing (objects and grants), in the plan's order; stored secrets shown as [REDACTED].",
    tag: 'scripts',
    tables: [{ table: 'integrations', access: 'read' }],
    usesSecrets: true,
  },
  {
    method: 'POST',
    path: '/integrations/scripts/post-cleanup',
    handler: 'functions/integrations/scripts/post-cleanup.ts',
    auth: 'admin',
    summary: 'Second removal script (AnalyticsWarehouse: drops the login in master).',
    tag: 'scripts',
  },
  // ── webhooks (issue: webhooks) ───────────────────────────────────────────────────────
  {
    method: 'POST',
    path: '/webhooks',
    handler: 'functions/webhooks/create.ts',
    auth: 'user',
    summary:
      'Create one or more webhooks; invalid or forbidden entries are reported in `errors`, the valid ones are still created.',
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
    summary: 'Webhooks visible to the caller: admins see all, other users their own.',
    tag: 'webhooks',
    tables: [{ table: 'webhooks', access: 'read' }],
  },
  {
    method: 'GET',
    path: '/webhooks/actions',
    handler: 'functions/webhooks/actions.ts',
    auth: 'user',
    summary: 'Valid notification actions: ALL_NOTIFICATIONS and every notification name.',
    tag: 'webhooks',
  },
  {
    method: 'GET',
    path: '/webhooks/history',
    handler: 'functions/webhooks/history.ts',
    auth: 'user',
    summary: "One page of the caller's webhook history (filters, sorting, paging) and the total count.",
    tag: 'webhooks',
    tables: [
      { table: 'deliveryHistory', access: 'read' },
      { table: 'deliveryCounts', access: 'read' },
    ],
  },
  {
    method: 'GET',
    path: '/webhooks/{id}',
    handler: 'functions/webhooks/get.ts',
    auth: 'user',
    summary:
      'One webhook with its delivery health (404 unless it is the caller’s own or the caller is an admin).',
    tag: 'webhooks',
    tables: [
      { table: 'webhooks', access: 'read' },
      // The health figures, from the webhook's history index.
      { table: 'deliveryHistory', access: 'read' },
    ],
  },
  {
    method: 'DELETE',
    path: '/webhooks/{id}',
    handler: 'functions/webhooks/delete.ts',
    auth: 'user',
    summary: 'Delete a webhook and its subscriptions; returns the deleted webhook.',
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
    summary:
      'Change a webhook (JSON merge patch: name, url, notificationType, global, actionType, maxDeliveriesPerSecond); returns it.',
    tag: 'webhooks',
    tables: [
      { table: 'webhooks', access: 'readWrite' },
      { table: 'webhookSubscriptions', access: 'readWrite' },
      // A new URL moves the owner's per-URL counters in the same transaction.
      { table: 'counters', access: 'readWrite' },
    ],
  },
  {
    method: 'POST',
    path: '/webhooks/{id}/disable',
    handler: 'functions/webhooks/disable.ts',
    auth: 'user',
    summary: 'Pause a webhook: no new deliveries; queued attempts are recorded as skipped (recoverable).',
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
    summary: 'Resume a disabled webhook (one disabled by key revocation: admins only).',
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
    summary:
      'Replace the signing secret (the caller’s or a generated one, returned once); the previous one keeps signing during the overlap window.',
    tag: 'webhooks',
    tables: [{ table: 'webhooks', access: 'readWrite' }],
    usesSecrets: true,
  },
  {
    method: 'POST',
    path: '/webhooks/{id}/test',
    handler: 'functions/webhooks/test.ts',
    auth: 'user',
    summary:
      'Send a signed example notification to the webhook now; returns its history record (test: true).',
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
    summary:
      'Re-send the deliveries of a time window whose latest attempt failed (or all): 202 with a job id; dryRun answers the count.',
    tag: 'webhooks',
    timeoutSeconds: 30,
    tables: [
      { table: 'webhooks', access: 'read' },
      // dryRun counts through the webhook's history index.
      { table: 'deliveryHistory', access: 'read' },
      { table: 'webhookJobs', access: 'readWrite' },
    ],
    // The job's first step.
    sendsTo: ['recoveries'],
  },
  {
    method: 'GET',
    path: '/webhooks/{id}/recover/{jobId}',
    handler: 'functions/webhooks/recover-status.ts',
    auth: 'user',
    summary: "A recover job's progress and final counts.",
    tag: 'webhooks',
    tables: [
      { table: 'webhooks', access: 'read' },
      { table: 'webhookJobs', access: 'read' },
    ],
  },
  {
    method: 'POST',
    path: '/webhooks/history/retry/{id}',
    handler: 'functions/webhooks/retry.ts',
    auth: 'user',
    summary: "Re-send a history record's request to its webhook now; returns the new history record.",
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
