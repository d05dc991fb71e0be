/**
 * Each route's one-line summary: the OpenAPI operation summary and the function's description.
 * Apart from the route table (./routes.ts), which every API handler bundles to re-check its
 * route's permission, so the documentation does not weigh on the handlers; the type makes this
 * table name every cataloged route, and only those.
 */
import { type CatalogedRouteKey, type RouteDef, routeKey } from './routes';

const routeSummaries = {
  'GET /health': 'Liveness and readiness: 200 with JSON once the service can reach its tables.',
  'GET /openapi.json':
    'The OpenAPI 3.1 document of this API, generated from the route table and zod schemas.',
  'GET /me': 'The principal behind the API key: user id, name and permissions.',
  'GET /integrations': 'Every integration, config redacted.',
  'POST /integrations':
    'Create an integration (JSON or YAML): validate, claim the host, start the lifecycle; dryRun validates only.',
  'GET /integrations/{id}': 'One integration, config with defaults applied and secrets redacted.',
  'PUT /integrations/{id}': 'Update an integration (or retry its failed creation); dryRun validates only.',
  'DELETE /integrations/{id}':
    'Delete an integration (privileged credentials in the body when automatic); forceDisable, dryRun.',
  'GET /integrations/{id}/status': 'The integration id (a number) and its status.',
  'POST /integrations/{id}/regenerate':
    'FederatedSql: issue a new cluster API key; returns it once with the configuration snippet.',
  'POST /integrations/{id}/repair':
    'Automatic integrations in recurringValidationError: re-run the setup steps the last check found missing (status editing), then check again.',
  'POST /integrations/scripts/initial-create':
    'First manual setup script (AnalyticsWarehouse: the login in master; ClusterWarehouse: user, groups and database).',
  'POST /integrations/scripts/create':
    'Manual setup script; run it before POST /integrations with autoBootstrap false.',
  'POST /integrations/{id}/scripts/edit':
    'Script of the remote changes an edit needs; run it before PUT /integrations/{id}.',
  'POST /integrations/{id}/scripts/delete':
    'Removal script for a created integration; run it before DELETE /integrations/{id}.',
  'POST /integrations/scripts/cleanup':
    'Removal script for an integration that failed to create (AnalyticsWarehouse: then post-cleanup).',
  'POST /integrations/{id}/scripts/cleanup':
    "Removal script for a stored integration: what its failed automatic setup left behind (when undoing it failed too), else everything its setup creates; never the operator's own accounts.",
  'POST /integrations/{id}/scripts/repair':
    "Script recreating exactly what the last periodic check found missing (objects and grants), in the plan's order; stored secrets shown as [REDACTED].",
  'POST /integrations/scripts/post-cleanup':
    'Second removal script (AnalyticsWarehouse: drops the login in master).',
  'POST /data-sources':
    'Register data sources (a name and an s3:// prefix, bucket or object that exists) under an enabled ObjectStore integration; refused entries are reported in `errors`.',
  'GET /data-sources': 'One page of data sources (optionally of one integration), in id order.',
  'GET /data-sources/{id}': 'One data source.',
  'DELETE /data-sources/{id}': 'Remove a data source from the service; answers it.',
  'POST /webhooks':
    'Create one or more webhooks; invalid or forbidden entries are reported in `errors`, the valid ones are still created.',
  'GET /webhooks':
    'Webhooks visible to the caller (admins see all, other users their own), each with its delivery health.',
  'GET /webhooks/actions': 'Valid notification actions: ALL_NOTIFICATIONS and every notification name.',
  'GET /webhooks/aws-trust':
    "What an AWS role of the caller's must trust for webhook deliveries into their account (coming): the service's principal ARN, the caller's ExternalId (made on first request, never changed) and the trust policy to paste.",
  'GET /webhooks/history':
    "One page of the caller's webhook history (filters, sorting, paging) and the total count.",
  'GET /webhooks/{id}':
    'One webhook with its delivery health and receiver latency (404 unless it is the caller’s own or the caller is an admin).',
  'DELETE /webhooks/{id}': 'Delete a webhook and its subscriptions; returns the deleted webhook.',
  'PATCH /webhooks/{id}':
    'Change a webhook (JSON merge patch: name, url or destination, notificationType, global, actionType, maxDeliveriesPerSecond, filter, signatureScheme, ordered); returns it.',
  'POST /webhooks/{id}/disable':
    'Pause a webhook: no new deliveries; queued attempts are recorded as skipped (recoverable).',
  'POST /webhooks/{id}/enable': 'Resume a disabled webhook (one disabled by key revocation: admins only).',
  'POST /webhooks/{id}/secret/rotate':
    'Replace the signing secret (the caller’s or a generated one, returned once); the previous one keeps signing during the overlap window.',
  'GET /webhooks/{id}/ordering-keys':
    "List an ordered webhook's ordering keys that are not flowing (`?state=parked`: the parked ones), with paging.",
  'POST /webhooks/{id}/ordering-keys/{key}/resume':
    'Resume a parked ordering key: its head is tried again and its waiting notifications follow in order.',
  'POST /webhooks/{id}/ordering-keys/{key}/skip':
    "Skip a parked ordering key's head (recorded as `keySkipped`, never sent); its waiting notifications follow in order.",
  'POST /webhooks/{id}/test':
    'Send a signed example notification to the webhook now; returns its history record (test: true).',
  'POST /webhooks/{id}/recover':
    'Re-send the deliveries of a time window whose latest attempt failed (or all): 202 with a job id; dryRun answers the count.',
  'GET /webhooks/{id}/recover/{jobId}': "A recover job's progress and final counts.",
  'GET /webhook-keys/{keySetId}':
    "The public keys of a `v1a` webhook as a JWK set (no API key: the URL's id is unguessable)",
  'POST /webhooks/filters/preview':
    'Evaluate a payload filter against the newest notifications the caller may see (up to 1,000): counts, matching and non-matching ids, errors.',
  'POST /webhooks/history/retry/{id}':
    "Re-send a history record's request to its webhook now; returns the new history record.",
} as const satisfies Record<CatalogedRouteKey, string>;

/** The summary of a cataloged route. */
export function routeSummary(route: Pick<RouteDef, 'method' | 'path'>): string {
  const summary = (routeSummaries as Record<string, string>)[routeKey(route)];
  if (summary === undefined) throw new Error(`no summary for route ${routeKey(route)}`);
  return summary;
}
