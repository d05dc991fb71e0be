/**
 * What each route's function may touch: the tables (read or read/write), queues, workflow,
 * secrets key and internal functions its catalog entry grants. The CDK api construct turns a
 * route's grants into its function's environment and IAM policy, and the local gateway gives each
 * invocation exactly those variables (./environment.ts), so a grant missing here fails locally as
 * it would in AWS — and `test/integration/webhooks/route-states.test.ts` runs every webhook route
 * against every kind of webhook to find one.
 *
 * Apart from the route table (./routes.ts), which every API handler bundles to re-check its
 * route's permission, so the grants do not weigh on the handlers (with them the table had brought
 * an integration script handler to the API bundle limit, issue 34); the type makes this table name
 * every cataloged route, and only those.
 */
import type { FunctionAccess } from './access';
import { type CatalogedRouteKey, type RouteDef, routeKey } from './routes';

const routeGrants = {
  'GET /health': {
    tables: [{ table: 'counters', access: 'read' }],
  },
  'GET /openapi.json': {},
  'GET /me': {},
  'GET /integrations': {
    tables: [{ table: 'integrations', access: 'read' }],
    usesSecrets: true,
  },
  'POST /integrations': {
    tables: [
      { table: 'integrations', access: 'readWrite' },
      { table: 'integrationClaims', access: 'readWrite' },
      { table: 'counters', access: 'readWrite' },
    ],
    startsWorkflow: true,
    usesSecrets: true,
    invokes: ['platformConnector'],
  },
  'GET /integrations/{id}': {
    tables: [{ table: 'integrations', access: 'read' }],
    usesSecrets: true,
  },
  'PUT /integrations/{id}': {
    tables: [
      { table: 'integrations', access: 'readWrite' },
      { table: 'integrationClaims', access: 'readWrite' },
    ],
    startsWorkflow: true,
    usesSecrets: true,
    invokes: ['platformConnector'],
  },
  'DELETE /integrations/{id}': {
    tables: [
      { table: 'integrations', access: 'readWrite' },
      { table: 'integrationClaims', access: 'readWrite' },
      { table: 'transientSecrets', access: 'readWrite' },
      // forceDisable removes the integration's data sources (ADR 0016).
      { table: 'dataSources', access: 'readWrite' },
    ],
    startsWorkflow: true,
    usesSecrets: true,
    invokes: ['platformConnector'],
  },
  'GET /integrations/{id}/status': {
    tables: [{ table: 'integrations', access: 'read' }],
  },
  'POST /integrations/{id}/regenerate': {
    tables: [{ table: 'integrations', access: 'readWrite' }],
  },
  'POST /integrations/{id}/repair': {
    tables: [{ table: 'integrations', access: 'readWrite' }],
    startsWorkflow: true,
  },
  'POST /integrations/scripts/initial-create': {},
  'POST /integrations/scripts/create': {},
  'POST /integrations/{id}/scripts/edit': {
    tables: [{ table: 'integrations', access: 'read' }],
    usesSecrets: true,
  },
  'POST /integrations/{id}/scripts/delete': {
    tables: [{ table: 'integrations', access: 'read' }],
    usesSecrets: true,
  },
  'POST /integrations/scripts/cleanup': {},
  'POST /integrations/{id}/scripts/cleanup': {
    tables: [{ table: 'integrations', access: 'read' }],
    usesSecrets: true,
  },
  'POST /integrations/{id}/scripts/repair': {
    tables: [{ table: 'integrations', access: 'read' }],
    usesSecrets: true,
  },
  'POST /integrations/scripts/post-cleanup': {},
  'POST /data-sources': {
    tables: [
      { table: 'integrations', access: 'readWrite' },
      { table: 'dataSources', access: 'readWrite' },
      { table: 'counters', access: 'readWrite' },
    ],
    invokes: ['platformConnector'],
  },
  'GET /data-sources': {
    tables: [{ table: 'dataSources', access: 'read' }],
  },
  'GET /data-sources/{id}': {
    tables: [{ table: 'dataSources', access: 'read' }],
  },
  'DELETE /data-sources/{id}': {
    tables: [
      { table: 'integrations', access: 'readWrite' },
      { table: 'dataSources', access: 'readWrite' },
    ],
  },
  'POST /webhooks': {
    tables: [
      { table: 'webhooks', access: 'readWrite' },
      { table: 'webhookSubscriptions', access: 'readWrite' },
      { table: 'counters', access: 'readWrite' },
      // A `v1a` webhook's key set, in the create transaction.
      { table: 'webhookKeySets', access: 'readWrite' },
      // A destination's role is assumed with the owner's ExternalId (never written here).
      { table: 'awsExternalIds', access: 'read' },
    ],
    usesSecrets: true,
    // An AWS destination's trust is checked before it is stored (ADR 0019).
    deliveryPrincipal: 'assume',
  },
  'GET /webhooks': {
    tables: [
      { table: 'webhooks', access: 'read' },
      // The health figures: the stream-kept counters, and a failing webhook's streak on its index.
      { table: 'deliveryCounts', access: 'read' },
      { table: 'deliveryHistory', access: 'read' },
      // …and an ordered webhook's parked keys, counted.
      { table: 'orderedKeys', access: 'read' },
    ],
  },
  'GET /webhooks/actions': {},
  'GET /webhooks/aws-trust': {
    // The caller's ExternalId, made on first request (a conditional create).
    tables: [{ table: 'awsExternalIds', access: 'readWrite' }],
    // The principal's ARN, to name in the trust policy; never assumed here.
    deliveryPrincipal: 'name',
  },
  'GET /webhooks/history': {
    tables: [
      { table: 'deliveryHistory', access: 'read' },
      { table: 'deliveryCounts', access: 'read' },
      // `webhookId`: whose webhook it is, checked before its index is read.
      { table: 'webhooks', access: 'read' },
    ],
  },
  'GET /webhooks/{id}': {
    tables: [
      { table: 'webhooks', access: 'read' },
      // The health figures: the stream-kept counters, a failing webhook's streak on its index, and
      // the latency of its newest attempts (their records by key).
      { table: 'deliveryCounts', access: 'read' },
      { table: 'deliveryHistory', access: 'read' },
      // …and an ordered webhook's parked keys, counted.
      { table: 'orderedKeys', access: 'read' },
    ],
  },
  'DELETE /webhooks/{id}': {
    tables: [
      { table: 'webhooks', access: 'readWrite' },
      { table: 'webhookSubscriptions', access: 'readWrite' },
      // The delete transaction gives the owner's quota and per-URL slots back.
      { table: 'counters', access: 'readWrite' },
      // …and deletes the webhook's key set, if it has one.
      { table: 'webhookKeySets', access: 'readWrite' },
      // An ordered webhook's keys that are not flowing…
      { table: 'orderedKeys', access: 'read' },
    ],
    // …each get a drain message, whose consumer removes what the key left (ADR 0020).
    sendsTo: ['deliveriesOrdered'],
  },
  'PATCH /webhooks/{id}': {
    tables: [
      { table: 'webhooks', access: 'readWrite' },
      { table: 'webhookSubscriptions', access: 'readWrite' },
      // A new URL moves the owner's per-URL counters in the same transaction.
      { table: 'counters', access: 'readWrite' },
      // An admin's change of another user's webhook: may the owner have a global one?
      { table: 'principals', access: 'read' },
      // A signatureScheme switch writes the key set in the same transaction…
      { table: 'webhookKeySets', access: 'readWrite' },
      // A new destination's role is assumed with the owner's ExternalId (never written here).
      { table: 'awsExternalIds', access: 'read' },
      // `ordered: false` is refused while a key is parked, held or draining (ADR 0020).
      { table: 'orderedKeys', access: 'read' },
    ],
    // …and seals the new key pair or HMAC secret.
    usesSecrets: true,
    // A new AWS destination's trust is checked before the change is stored (ADR 0019).
    deliveryPrincipal: 'assume',
  },
  'POST /webhooks/{id}/disable': {
    tables: [
      { table: 'webhooks', access: 'readWrite' },
      { table: 'webhookSubscriptions', access: 'readWrite' },
    ],
  },
  'POST /webhooks/{id}/enable': {
    tables: [
      { table: 'webhooks', access: 'readWrite' },
      { table: 'webhookSubscriptions', access: 'readWrite' },
      // An ordered webhook's keys held while it was disabled: held → draining (ADR 0020)…
      { table: 'orderedKeys', access: 'readWrite' },
    ],
    // …and a drain message into each one's group.
    sendsTo: ['deliveriesOrdered'],
  },
  'POST /webhooks/{id}/secret/rotate': {
    tables: [
      { table: 'webhooks', access: 'readWrite' },
      // A filtered webhook's subscription items carry the version they were written at, so every
      // change of it, a rotation included, writes them again in the same transaction.
      { table: 'webhookSubscriptions', access: 'readWrite' },
      // A `v1a` webhook's rotation publishes the new key in the same transaction.
      { table: 'webhookKeySets', access: 'readWrite' },
    ],
    usesSecrets: true,
  },
  'POST /webhooks/{id}/test': {
    tables: [
      { table: 'webhooks', access: 'read' },
      // The per-user manual send counter (shared with manual retries).
      { table: 'counters', access: 'readWrite' },
    ],
    invokes: ['webhookSender'],
  },
  'POST /webhooks/{id}/recover': {
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
  'GET /webhooks/{id}/recover/{jobId}': {
    tables: [
      { table: 'webhooks', access: 'read' },
      { table: 'webhookJobs', access: 'read' },
    ],
  },
  'GET /webhooks/{id}/ordering-keys': {
    tables: [
      { table: 'webhooks', access: 'read' },
      { table: 'orderedKeys', access: 'read' },
    ],
  },
  'POST /webhooks/{id}/ordering-keys/{key}/resume': {
    tables: [
      { table: 'webhooks', access: 'read' },
      // The key's state item: parked or held → draining, conditionally.
      { table: 'orderedKeys', access: 'readWrite' },
    ],
    // The drain message, into the key's own group (ADR 0020).
    sendsTo: ['deliveriesOrdered'],
  },
  'POST /webhooks/{id}/ordering-keys/{key}/skip': {
    tables: [
      { table: 'webhooks', access: 'read' },
      { table: 'orderedKeys', access: 'readWrite' },
    ],
    sendsTo: ['deliveriesOrdered'],
  },
  'GET /webhook-keys/{keySetId}': {
    // One GetItem per request, nothing else (ADR 0018).
    tables: [{ table: 'webhookKeySets', access: 'read' }],
  },
  'POST /webhooks/filters/preview': {
    tables: [{ table: 'deliveryHistory', access: 'read' }],
  },
  'POST /webhooks/history/retry/{id}': {
    tables: [
      { table: 'deliveryHistory', access: 'read' },
      // The per-user manual retry counter.
      { table: 'counters', access: 'readWrite' },
    ],
    invokes: ['webhookSender'],
  },
} as const satisfies Record<CatalogedRouteKey, FunctionAccess>;

/** What a cataloged route's function may touch. */
export function routeAccess(route: Pick<RouteDef, 'method' | 'path'>): FunctionAccess {
  const access = (routeGrants as Record<string, FunctionAccess>)[routeKey(route)];
  if (access === undefined) throw new Error(`no grants for route ${routeKey(route)}`);
  return access;
}
