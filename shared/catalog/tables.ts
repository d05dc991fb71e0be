/**
 * The table catalog: the one place that says which DynamoDB tables exist, their keys,
 * indexes and TTL attribute. The CDK data construct, the local-cloud bootstrap and the store
 * layer (`shared/store/tables.ts`, env var names) all derive from this list.
 *
 * Keep this file free of imports: Lambda bundles import it to resolve table names.
 */

type KeyType = 'S' | 'N';

export interface KeyAttribute {
  readonly name: string;
  readonly type: KeyType;
}

export interface IndexDef {
  readonly name: string;
  readonly partitionKey: KeyAttribute;
  readonly sortKey?: KeyAttribute;
  /** Non-key attributes projected into the index; omitted means ALL. */
  readonly projection?: 'ALL' | 'KEYS_ONLY' | readonly string[];
}

export interface TableDef {
  /** Logical name; the env var is `TABLE_<NAME in upper snake case>`. */
  readonly name: string;
  readonly description: string;
  readonly partitionKey: KeyAttribute;
  readonly sortKey?: KeyAttribute;
  readonly indexes?: readonly IndexDef[];
  /** Attribute holding an epoch-seconds expiry; DynamoDB deletes expired items. */
  readonly ttlAttribute?: string;
  /** A DynamoDB stream of the table's changes (a stream consumer in `streams.ts` reads it). */
  readonly stream?: 'NEW_IMAGE';
}

export const tables = [
  // ── platform: principals, API keys, id counters ──────────────────────────────────────
  {
    name: 'principals',
    description: 'Users and service accounts: numeric user id, name, permissions.',
    partitionKey: { name: 'userId', type: 'N' },
  },
  {
    name: 'apiKeys',
    description: 'API keys, stored only as SHA-256 hashes of the key, with the owning user id.',
    partitionKey: { name: 'keyHash', type: 'S' },
    indexes: [{ name: 'byUser', partitionKey: { name: 'userId', type: 'N' } }],
  },
  {
    name: 'counters',
    description:
      'Monotonic id allocation for low-volume records (users, integrations, webhooks), webhook limit counters, and per-window rate counters (which expire).',
    partitionKey: { name: 'name', type: 'S' },
    ttlAttribute: 'expiresAt',
  },
  {
    name: 'transientSecrets',
    description:
      'Short-lived encrypted credentials handed to a workflow by reference (never in execution input).',
    partitionKey: { name: 'id', type: 'S' },
    ttlAttribute: 'expiresAt',
  },
  {
    name: 'idempotency',
    description: 'Powertools idempotency records (consumers de-duplicate redelivered messages).',
    partitionKey: { name: 'id', type: 'S' },
    ttlAttribute: 'expiration',
  },
  // ── integrations ─────────────────────────────────────────────────────────────────────
  {
    name: 'integrations',
    description: 'Integration records: type, status, config with secrets encrypted.',
    partitionKey: { name: 'id', type: 'N' },
    indexes: [
      {
        // Sparse: only integrations in creating/editing/deleting carry inFlightStatus (reconciler).
        name: 'byInFlightStatus',
        partitionKey: { name: 'inFlightStatus', type: 'S' },
        sortKey: { name: 'id', type: 'N' },
      },
    ],
  },
  {
    name: 'integrationClaims',
    description:
      'Uniqueness claims (host per type, ObjectStore name and location, the single FederatedSql) → integration id.',
    partitionKey: { name: 'claim', type: 'S' },
  },
  // ── webhooks ─────────────────────────────────────────────────────────────────────────
  {
    name: 'dataSources',
    description:
      'Data sources registered under integrations (ADR 0016): `ds#<id>` records (a deleted one kept a day, for its notice) and `name#`/`prefix#` uniqueness claims; the stream feeds the modelCreated/modelDeleted notices.',
    partitionKey: { name: 'key', type: 'S' },
    ttlAttribute: 'expiresAt',
    stream: 'NEW_IMAGE',
    indexes: [
      {
        // Sparse: only registered data sources carry activeIntegrationId.
        name: 'byIntegration',
        partitionKey: { name: 'activeIntegrationId', type: 'N' },
        sortKey: { name: 'dataSourceId', type: 'N' },
      },
      {
        // Sparse: only registered data sources carry `listed` (one value: admin-created, low volume).
        name: 'byKind',
        partitionKey: { name: 'listed', type: 'S' },
        sortKey: { name: 'dataSourceId', type: 'N' },
      },
    ],
  },
  {
    name: 'checkLeases',
    description:
      'One item per remote host while a periodic check runs against it: bounds the checks per host to one at a time (expires if a check dies).',
    partitionKey: { name: 'host', type: 'S' },
    ttlAttribute: 'expiresAt',
  },
  {
    name: 'webhooks',
    description: 'Webhook subscriptions, secret encrypted; index by owner for listing.',
    partitionKey: { name: 'id', type: 'N' },
    indexes: [
      {
        name: 'byOwner',
        partitionKey: { name: 'createdBy', type: 'N' },
        sortKey: { name: 'id', type: 'N' },
      },
    ],
  },
  {
    name: 'webhookKeySets',
    description:
      'The public keys of `v1a` webhooks (ADR 0018), one item per key set keyed by its unguessable id: `GET /webhook-keys/{keySetId}` reads one item. Written with the webhook in one transaction.',
    partitionKey: { name: 'keySetId', type: 'S' },
  },
  {
    // Apart from `principals` (whose items hold permissions): the route that makes an ExternalId
    // writes here, and may write nothing else of a principal.
    name: 'awsExternalIds',
    description:
      "The ExternalId each user's AWS roles require of the webhook delivery principal (ADR 0019): one item per user id, made on the first `GET /webhooks/aws-trust` with a conditional create, never changed.",
    partitionKey: { name: 'userId', type: 'N' },
  },
  {
    name: 'webhookSubscriptions',
    description:
      'One item per (notification type, audience, webhook) so fan-out is an index query that reads only matches.',
    partitionKey: { name: 'subscriptionKey', type: 'S' },
    sortKey: { name: 'webhookId', type: 'N' },
  },
  {
    name: 'deliveryHistory',
    description:
      'One record per delivery attempt, keyed by delivery and attempt (one conditional PutItem each). Expires after the retention. Two keys-only GSIs list an audience (by outcome, and by type and outcome) sorted by the time-ordered id, each audience in N write shards; the stream feeds the counters.',
    partitionKey: { name: 'deliveryId', type: 'S' },
    sortKey: { name: 'seq', type: 'N' },
    ttlAttribute: 'expiresAt',
    stream: 'NEW_IMAGE',
    indexes: [
      {
        name: 'byAudience',
        partitionKey: { name: 'la', type: 'S' },
        sortKey: { name: 'id', type: 'N' },
        projection: 'KEYS_ONLY',
      },
      {
        name: 'byAudienceType',
        partitionKey: { name: 'lt', type: 'S' },
        sortKey: { name: 'id', type: 'N' },
        projection: 'KEYS_ONLY',
      },
      {
        // One webhook's records by time (`lw` = <webhookId>|<shard>): the history's webhookId
        // filter and the recover job. The projected fields let both filter (visibility, type,
        // outcome) without reading the records (ADR 0007).
        name: 'byWebhook',
        partitionKey: { name: 'lw', type: 'S' },
        sortKey: { name: 'id', type: 'N' },
        projection: ['audience', 'notificationType', 'statusCode'],
      },
    ],
  },
  {
    name: 'deliveryCounts',
    description:
      "Per-day record counts of each audience × outcome (and × type), summed off the delivery path from the deliveryHistory stream, with the summing consumer's per-batch idempotency markers; they expire with their records.",
    partitionKey: { name: 'key', type: 'S' },
    ttlAttribute: 'expiresAt',
  },
  {
    // Legacy layout (before ADR 0006): read only by the one-off history migration
    // (`npm run cli -- history migrate`); remove once every stage has migrated.
    name: 'webhookHistory',
    description:
      'Legacy webhook history (four audience GSIs, counters in a transaction): read only by the history migration.',
    partitionKey: { name: 'id', type: 'N' },
    ttlAttribute: 'expiresAt',
    indexes: [
      {
        name: 'byAudience',
        partitionKey: { name: 'aud', type: 'S' },
        sortKey: { name: 'id', type: 'N' },
        projection: 'KEYS_ONLY',
      },
      {
        name: 'byAudienceType',
        partitionKey: { name: 'audType', type: 'S' },
        sortKey: { name: 'id', type: 'N' },
        projection: 'KEYS_ONLY',
      },
      {
        name: 'byAudienceOutcome',
        partitionKey: { name: 'audOutcome', type: 'S' },
        sortKey: { name: 'id', type: 'N' },
        projection: 'KEYS_ONLY',
      },
      {
        name: 'byAudienceTypeOutcome',
        partitionKey: { name: 'audTypeOutcome', type: 'S' },
        sortKey: { name: 'id', type: 'N' },
        projection: 'KEYS_ONLY',
      },
    ],
  },
  {
    // ADR 0020: a flowing key has no item, so the normal path costs one GetItem and listing a
    // webhook's parked keys is one Query.
    name: 'orderedKeys',
    description:
      "An ordered webhook's keys that are not flowing (parked after an exhausted schedule, held while the webhook is disabled, or draining after a resume or skip): `webhook#<id>`/`key#<orderingKey>` state items, and each key's waiting deliveries in order under `log#<id>#<orderingKey>`/zero-padded append number.",
    partitionKey: { name: 'pk', type: 'S' },
    sortKey: { name: 'sk', type: 'S' },
  },
  {
    name: 'webhookJobs',
    description:
      'Webhook recover jobs (progress, checkpoint, final counts) and the per-webhook lease that allows one running job at a time; they expire a week after they end.',
    partitionKey: { name: 'jobId', type: 'S' },
    ttlAttribute: 'expiresAt',
  },
] as const satisfies readonly TableDef[];

export type TableName = (typeof tables)[number]['name'];

export function tableEnvVar(name: TableName): string {
  return `TABLE_${name.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase()}`;
}

export function tableDef(name: TableName): TableDef {
  const def = tables.find((t) => t.name === name);
  if (!def) throw new Error(`unknown table ${name}`);
  return def;
}
