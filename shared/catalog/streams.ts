/**
 * The stream consumer catalog: every DynamoDB stream a Lambda function reads (the table's
 * `stream` in `tables.ts`). The CDK stream construct builds the event source mapping from it;
 * the local cloud's stream pollers (`infra/local/streams.ts`) behave the same with these numbers.
 *
 * Keep this file free of runtime imports: Lambda bundles import the catalogs.
 */
import type { FunctionAccess } from './access';
import type { TableName } from './tables';

export interface StreamConsumerDef extends FunctionAccess {
  readonly name: string;
  readonly description: string;
  /** The table whose stream the function reads. */
  readonly table: TableName;
  /** Handler module, relative to the repository root; it exports `handler`. */
  readonly handler: string;
  /** Records per invocation at most. */
  readonly batchSize: number;
  /** Seconds the event source waits to fill a batch: fewer, larger batches per counter item. */
  readonly maxBatchingWindowSeconds: number;
  readonly timeoutSeconds: number;
  readonly memoryMb: number;
}

export const streamConsumers = [
  {
    name: 'historyCounts',
    description:
      'Sums each batch of new delivery history records per counter key (and a recover job’s re-sends per job) and adds it once per key, with an idempotency marker per group (docs/adr/0006, 0014).',
    table: 'deliveryHistory',
    handler: 'functions/consumers/count-history.ts',
    batchSize: 1000,
    maxBatchingWindowSeconds: 5,
    timeoutSeconds: 60,
    memoryMb: 256,
    tables: [
      { table: 'deliveryCounts', access: 'readWrite' },
      // A recover job's `resent`, counted from its re-sends' records.
      { table: 'webhookJobs', access: 'readWrite' },
    ],
  },
  {
    name: 'dataSourceNotices',
    description:
      'Publishes modelCreated / modelDeleted for each data source registered or removed (ADR 0016), after the write committed, with an id per notice so a replayed batch is one notification.',
    table: 'dataSources',
    handler: 'functions/consumers/data-source-notices.ts',
    batchSize: 100,
    maxBatchingWindowSeconds: 0,
    timeoutSeconds: 30,
    memoryMb: 256,
    sendsTo: ['notifications'],
  },
] as const satisfies readonly StreamConsumerDef[];
