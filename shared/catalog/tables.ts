/**
 * The table catalogue: the one place that says which DynamoDB tables exist, their keys,
 * indexes and TTL attribute. The CDK data construct, the local-cloud bootstrap and the store
 * layer (`shared/store/tables.ts`, env var names) all derive from this list.
 *
 * Keep this file free of imports: Lambda bundles import it to resolve table names.
 */

export type KeyType = 'S' | 'N';

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
    name: 'webhookSubscriptions',
    description:
      'One item per (notification type, audience, webhook) so fan-out is an index query that reads only matches.',
    partitionKey: { name: 'subscriptionKey', type: 'S' },
    sortKey: { name: 'webhookId', type: 'N' },
  },
  {
    name: 'webhookHistory',
    description:
      'One record per delivery attempt; expires after the retention period. Keys-only GSIs per filter combination (sorted by the time-based id) make a history page cost O(offset + pageSize).',
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
    name: 'webhookHistoryCounts',
    description:
      'Per-day record counters of each history partition (audience × filters), updated in the record write transaction; they expire with their records.',
    partitionKey: { name: 'key', type: 'S' },
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
