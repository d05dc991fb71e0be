/**
 * The `dataSources` stream's consumer (ADR 0016): `modelCreated` for each data source registered
 * (an INSERT of its record), `modelDeleted` for each removed (the MODIFY that turns it `deleted`);
 * claims and expiries are ignored. Published after the write committed, so never for a write
 * that failed and never lost to a crash in between; each notice has its own id, so a batch
 * delivered again is the same notification. A record that cannot make a notice, or whose notice
 * the queue refuses for its content, is logged and skipped (a stream would otherwise stop at it);
 * a send that fails otherwise is reported as the batch item failure, so the stream resumes there
 * and one data source's notices keep their order.
 */
import type { AttributeValue, DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import type { NotificationMessage } from '../notifications/message';
import { buildNotification, publishNotifications } from '../notifications/publisher';
import { describeError, logger } from '../observability/logger';

type Image = Record<string, AttributeValue>;
const text = (image: Image, name: string) => image[name]?.S;
const num = (image: Image, name: string) => {
  const n = Number(image[name]?.N);
  return Number.isSafeInteger(n) ? n : undefined;
};

/** The notification a stream record makes, or undefined when it makes none. */
function noticeOf(record: DynamoDBRecord): NotificationMessage | undefined {
  const image = record.dynamodb?.NewImage as Image | undefined;
  if (!image || !text(image, 'key')?.startsWith('ds#')) return undefined;
  const state = text(image, 'state');
  const created = record.eventName === 'INSERT' && state === 'registered';
  const deleted = record.eventName === 'MODIFY' && state === 'deleted';
  if (!created && !deleted) return undefined;
  const id = num(image, 'dataSourceId');
  const integrationId = num(image, 'integrationId');
  const by = num(image, deleted ? 'deletedBy' : 'createdBy');
  const byName = text(image, deleted ? 'deletedByName' : 'createdByName');
  const name = text(image, 'dataSourceName') ?? '';
  const prefix = text(image, 'prefix') ?? '';
  if (id === undefined || integrationId === undefined)
    throw new Error('a data source record without its ids');
  const what = `Data source ${id} "${name}" (${prefix})`;
  return buildNotification({
    id: `datasource-${id}-${deleted ? 'deleted' : 'created'}`,
    notificationType: deleted ? 'modelDeleted' : 'modelCreated',
    text: deleted
      ? `${what} was removed from integration ${integrationId}${byName ? ` by ${byName}` : ''}.`
      : `${what} was registered under integration ${integrationId}${byName ? ` by ${byName}` : ''}.`,
    metadata: {
      modelId: id,
      modelType: 'datasource',
      actionBy: by ?? null,
      actionByName: byName ?? null,
      integrationId,
      dataSourceName: name,
      prefix,
    },
    ...((deleted ? text(image, 'deletedAt') : text(image, 'createdAt'))
      ? { timestamp: deleted ? text(image, 'deletedAt') : text(image, 'createdAt') }
      : {}),
  });
}

/** A send SQS refused as the sender's fault (its content), which no retry changes. */
const refusedForGood = (error: unknown) =>
  error instanceof Error && /^SQS refused a message\b/.test(error.message);

export async function publishDataSourceNotices(event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> {
  let published = 0;
  for (const record of event.Records) {
    let notice: NotificationMessage | undefined;
    try {
      notice = noticeOf(record);
    } catch (error) {
      logger.error('a data source record makes no notice; skipped', {
        eventId: record.eventID,
        ...describeError(error),
      });
      continue;
    }
    if (!notice) continue;
    try {
      await publishNotifications([notice]);
      published++;
    } catch (error) {
      if (refusedForGood(error)) {
        // The queue will never take it (the local emulator refuses an emoji AWS accepts): a
        // stream stopped at it would hold every later notice back.
        logger.error('a data source notice was refused by the queue; skipped', {
          eventId: record.eventID,
          notificationId: notice.id,
          ...describeError(error),
        });
        continue;
      }
      logger.error('a data source notice could not be sent; the stream resumes at it', {
        eventId: record.eventID,
        notificationId: notice.id,
        ...describeError(error),
      });
      const at = record.dynamodb?.SequenceNumber;
      return { batchItemFailures: at ? [{ itemIdentifier: at }] : [] };
    }
  }
  if (published > 0) logger.info('data source notices published', { published });
  return { batchItemFailures: [] };
}
