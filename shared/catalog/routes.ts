/**
 * The route table: every HTTP route, the handler module that serves it and who may call it. The
 * CDK api construct makes one function per row, the local gateway serves the same rows, the
 * OpenAPI document and the authorization tests are generated from it, and handlers look up their
 * own row (by `event.routeKey`) to re-check permissions. What each route's function may touch is
 * in ./route-access.ts and its one-line summary (OpenAPI, function descriptions) in
 * ./route-summaries.ts, both keyed by route: neither weighs on the handler bundles.
 *
 * Keep this file free of runtime imports: every Lambda bundle includes it.
 */

type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * - `public`: no Authorization header needed (health, OpenAPI document, webhooks' public keys);
 * - `user`: any valid API key;
 * - `admin`: a key whose principal has APPLICATION_ADMIN.
 */
type RouteAuth = 'public' | 'user' | 'admin';

export interface RouteDef {
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
  },
  {
    method: 'POST',
    path: '/integrations',
    handler: 'functions/integrations/create.ts',
    auth: 'admin',
    tag: 'integrations',
    timeoutSeconds: 30,
  },
  {
    method: 'GET',
    path: '/integrations/{id}',
    handler: 'functions/integrations/get.ts',
    auth: 'admin',
    tag: 'integrations',
  },
  {
    method: 'PUT',
    path: '/integrations/{id}',
    handler: 'functions/integrations/update.ts',
    auth: 'admin',
    tag: 'integrations',
    timeoutSeconds: 30,
  },
  {
    method: 'DELETE',
    path: '/integrations/{id}',
    handler: 'functions/integrations/delete.ts',
    auth: 'admin',
    tag: 'integrations',
    timeoutSeconds: 30,
  },
  {
    method: 'GET',
    path: '/integrations/{id}/status',
    handler: 'functions/integrations/status.ts',
    auth: 'admin',
    tag: 'integrations',
  },
  {
    method: 'POST',
    path: '/integrations/{id}/regenerate',
    handler: 'functions/integrations/regenerate.ts',
    auth: 'admin',
    tag: 'integrations',
  },
  {
    method: 'POST',
    path: '/integrations/{id}/repair',
    handler: 'functions/integrations/repair.ts',
    auth: 'admin',
    tag: 'integrations',
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
  },
  {
    method: 'POST',
    path: '/integrations/{id}/scripts/delete',
    handler: 'functions/integrations/scripts/delete.ts',
    auth: 'admin',
    tag: 'scripts',
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
  },
  {
    method: 'POST',
    path: '/integrations/{id}/scripts/repair',
    handler: 'functions/integrations/scripts/repair.ts',
    auth: 'admin',
    tag: 'scripts',
  },
  {
    method: 'POST',
    path: '/integrations/scripts/post-cleanup',
    handler: 'functions/integrations/scripts/post-cleanup.ts',
    auth: 'admin',
    tag: 'scripts',
  },
  // ── data sources under integrations (issue 38, ADR 0016) ─────────────────────────────
  {
    method: 'POST',
    path: '/data-sources',
    handler: 'functions/data-sources/create.ts',
    auth: 'admin',
    tag: 'integrations',
    // One connector invocation checks every entry's path (bounded at 20 s inside it).
    timeoutSeconds: 30,
  },
  {
    method: 'GET',
    path: '/data-sources',
    handler: 'functions/data-sources/list.ts',
    auth: 'admin',
    tag: 'integrations',
  },
  {
    method: 'GET',
    path: '/data-sources/{id}',
    handler: 'functions/data-sources/get.ts',
    auth: 'admin',
    tag: 'integrations',
  },
  {
    method: 'DELETE',
    path: '/data-sources/{id}',
    handler: 'functions/data-sources/delete.ts',
    auth: 'admin',
    tag: 'integrations',
  },
  // ── webhooks (issue: webhooks) ───────────────────────────────────────────────────────
  {
    method: 'POST',
    path: '/webhooks',
    handler: 'functions/webhooks/create.ts',
    auth: 'user',
    tag: 'webhooks',
  },
  {
    method: 'GET',
    path: '/webhooks',
    handler: 'functions/webhooks/list.ts',
    auth: 'user',
    tag: 'webhooks',
  },
  {
    method: 'GET',
    path: '/webhooks/actions',
    handler: 'functions/webhooks/actions.ts',
    auth: 'user',
    tag: 'webhooks',
  },
  {
    // What a customer's AWS role must trust for deliveries into their account (ADR 0019).
    method: 'GET',
    path: '/webhooks/aws-trust',
    handler: 'functions/webhooks/aws-trust.ts',
    auth: 'user',
    tag: 'webhooks',
  },
  {
    method: 'GET',
    path: '/webhooks/history',
    handler: 'functions/webhooks/history.ts',
    auth: 'user',
    tag: 'webhooks',
  },
  {
    method: 'GET',
    path: '/webhooks/{id}',
    handler: 'functions/webhooks/get.ts',
    auth: 'user',
    tag: 'webhooks',
  },
  {
    method: 'DELETE',
    path: '/webhooks/{id}',
    handler: 'functions/webhooks/delete.ts',
    auth: 'user',
    tag: 'webhooks',
  },
  {
    method: 'PATCH',
    path: '/webhooks/{id}',
    handler: 'functions/webhooks/update.ts',
    auth: 'user',
    tag: 'webhooks',
  },
  {
    method: 'POST',
    path: '/webhooks/{id}/disable',
    handler: 'functions/webhooks/disable.ts',
    auth: 'user',
    tag: 'webhooks',
  },
  {
    method: 'POST',
    path: '/webhooks/{id}/enable',
    handler: 'functions/webhooks/enable.ts',
    auth: 'user',
    tag: 'webhooks',
  },
  {
    method: 'POST',
    path: '/webhooks/{id}/secret/rotate',
    handler: 'functions/webhooks/rotate-secret.ts',
    auth: 'user',
    tag: 'webhooks',
  },
  {
    method: 'POST',
    path: '/webhooks/{id}/test',
    handler: 'functions/webhooks/test.ts',
    auth: 'user',
    tag: 'webhooks',
    timeoutSeconds: 30,
  },
  {
    method: 'POST',
    path: '/webhooks/{id}/recover',
    handler: 'functions/webhooks/recover.ts',
    auth: 'user',
    tag: 'webhooks',
    timeoutSeconds: 30,
  },
  {
    method: 'GET',
    path: '/webhooks/{id}/recover/{jobId}',
    handler: 'functions/webhooks/recover-status.ts',
    auth: 'user',
    tag: 'webhooks',
  },
  {
    method: 'GET',
    path: '/webhooks/{id}/ordering-keys',
    handler: 'functions/webhooks/ordering-keys.ts',
    auth: 'user',
    tag: 'webhooks',
  },
  {
    method: 'POST',
    path: '/webhooks/{id}/ordering-keys/{key}/resume',
    handler: 'functions/webhooks/resume-ordering-key.ts',
    auth: 'user',
    tag: 'webhooks',
  },
  {
    method: 'POST',
    path: '/webhooks/{id}/ordering-keys/{key}/skip',
    handler: 'functions/webhooks/skip-ordering-key.ts',
    auth: 'user',
    tag: 'webhooks',
  },
  {
    // The public keys of `v1a` webhooks (ADR 0018): no API key, an unguessable id.
    method: 'GET',
    path: '/webhook-keys/{keySetId}',
    handler: 'functions/webhooks/keys.ts',
    auth: 'public',
    tag: 'webhooks',
  },
  {
    method: 'POST',
    path: '/webhooks/filters/preview',
    handler: 'functions/webhooks/preview-filter.ts',
    auth: 'user',
    tag: 'webhooks',
    // Up to 5,000 history index entries and 1,000 records by key.
    timeoutSeconds: 30,
  },
  {
    method: 'POST',
    path: '/webhooks/history/retry/{id}',
    handler: 'functions/webhooks/retry.ts',
    auth: 'user',
    tag: 'webhooks',
    timeoutSeconds: 30,
  },
] as const satisfies readonly RouteDef[];

export type RouteKey = `${HttpMethod} ${string}`;

type KeyOf<R> = R extends { readonly method: infer M extends string; readonly path: infer P extends string }
  ? `${M} ${P}`
  : never;
/** The key of every cataloged route (the tables keyed by route name each one, and only those). */
export type CatalogedRouteKey = KeyOf<(typeof routes)[number]>;

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
