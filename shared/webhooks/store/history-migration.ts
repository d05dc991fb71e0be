/**
 * The one-off move of the legacy history table (`webhookHistory`, before ADR 0006) into
 * `deliveryHistory`: every live legacy record is written in the new layout with its id,
 * `createdAt` and expiry kept (so API ids and the retention do not change), its write shard taken
 * from its id, and — with `deleteSource` — removed from the legacy table once copied. The copy is
 * a conditional put, so a run can be repeated or resumed; the new table's stream counts every
 * copied record once. Run by `npm run cli -- history migrate` and by the local cloud at start.
 */
import { DeleteCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../../store/clients';
import { tableName } from '../../store/tables';
import { historyWriteShards } from '../config';
import { putHistoryItem } from './history';
import {
  listingKeys,
  outcomeOf,
  type StoredHistoryRecord,
  storedKey,
  webhookListingKey,
} from './history-keys';

export interface MigrationReport {
  scanned: number;
  copied: number;
  alreadyThere: number;
  expired: number;
  deleted: number;
}

type LegacyRecord = Omit<StoredHistoryRecord, 'deliveryId' | 'seq' | 'la' | 'lt' | 'lw'> & {
  deliveryId: string;
  updatedAt?: string;
  aud?: string;
  audType?: string;
  audOutcome?: string;
  audTypeOutcome?: string;
};

/** A legacy record in the new layout. */
function migratedItem(legacy: LegacyRecord, shards: number): StoredHistoryRecord {
  const { aud, audType, audOutcome, audTypeOutcome, updatedAt, request, ...fields } = legacy;
  const shard = legacy.id % shards;
  return {
    ...fields,
    ...storedKey({
      deliveryId: legacy.deliveryId,
      attemptOrId: legacy.retryOf === undefined ? legacy.attempt : legacy.id,
    }),
    request: typeof request === 'string' ? request : JSON.stringify(request),
    ...listingKeys(legacy.audience, legacy.notificationType, outcomeOf(legacy.statusCode), shard),
    lw: webhookListingKey(legacy.webhooksId, shard),
  };
}

export async function migrateLegacyHistory(options: { deleteSource: boolean }): Promise<MigrationReport> {
  const legacyTable = tableName('webhookHistory');
  const report: MigrationReport = { scanned: 0, copied: 0, alreadyThere: 0, expired: 0, deleted: 0 };
  const shards = historyWriteShards();
  let start: Record<string, unknown> | undefined;
  do {
    const page = await documentClient.send(
      new ScanCommand({ TableName: legacyTable, ExclusiveStartKey: start }),
    );
    for (const legacy of (page.Items ?? []) as LegacyRecord[]) {
      report.scanned++;
      if (legacy.expiresAt * 1000 <= Date.now()) report.expired++;
      else if ((await putHistoryItem(migratedItem(legacy, shards))) === 'stored') report.copied++;
      else report.alreadyThere++;
      if (options.deleteSource) {
        await documentClient.send(new DeleteCommand({ TableName: legacyTable, Key: { id: legacy.id } }));
        report.deleted++;
      }
    }
    start = page.LastEvaluatedKey;
  } while (start);
  return report;
}

/** Whether the legacy table still holds records (one item read). */
export async function legacyHistoryPresent(): Promise<boolean> {
  const page = await documentClient.send(
    new ScanCommand({ TableName: tableName('webhookHistory'), Limit: 1, ProjectionExpression: 'id' }),
  );
  return (page.Items ?? []).length > 0;
}
