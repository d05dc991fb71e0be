/**
 * The ExternalIds of ADR 0019: one item per user id in the `awsExternalIds` table, apart from the
 * principal's item (which holds its permissions, and which the route making an ExternalId may
 * not write). An item is created once, conditionally, and never changed.
 */
import { getItem } from '../../store/read';
import { tableName } from '../../store/tables';
import { putIfAbsent } from '../../store/write';

interface ExternalIdItem {
  userId: number;
  externalId: string;
  createdAt: string;
}

/** The user's ExternalId, if one was made (a consistent read). */
export async function storedExternalId(userId: number): Promise<string | undefined> {
  const item = await getItem<ExternalIdItem>(tableName('awsExternalIds'), { userId });
  return item?.externalId;
}

/** Stores `externalId` for the user unless one is stored already; true when this one was. */
export function storeExternalIdIfAbsent(
  userId: number,
  externalId: string,
  now = new Date(),
): Promise<boolean> {
  const item: ExternalIdItem = { userId, externalId, createdAt: now.toISOString() };
  return putIfAbsent(tableName('awsExternalIds'), { ...item }, 'userId');
}
