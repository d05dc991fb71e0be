/**
 * Conditional writes every repository shares. A failed condition is an answer, not an error:
 * `putIfAbsent`, `conditionalUpdate` and `conditionalDelete` return false when the condition
 * did not hold and rethrow anything else. Transactions report which item's condition failed
 * through `cancellationCodes`.
 */
import {
  DeleteCommand,
  type DeleteCommandInput,
  PutCommand,
  type PutCommandInput,
  TransactWriteCommand,
  type TransactWriteCommandInput,
  UpdateCommand,
  type UpdateCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { documentClient } from './clients';

export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

function isConditionFailed(error: unknown): boolean {
  return (error as Error).name === 'ConditionalCheckFailedException';
}

/** Whether `error` is a cancelled transaction (one of its conditions failed, or a conflict). */
export function isTransactionCancelled(error: unknown): boolean {
  return (error as Error).name === 'TransactionCanceledException';
}

/** Per transaction item, why it was cancelled (`None` for the items that were fine). */
export function cancellationCodes(error: unknown): string[] {
  const reasons = (error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons ?? [];
  return reasons.map((r) => r.Code ?? 'None');
}

async function unlessConditionFailed(write: () => Promise<unknown>): Promise<boolean> {
  try {
    await write();
    return true;
  } catch (error) {
    if (isConditionFailed(error)) return false;
    throw error;
  }
}

/** Puts `item` unless an item with its key (attribute `keyAttribute`) exists; true when written. */
export function putIfAbsent(
  table: string,
  item: Record<string, unknown>,
  keyAttribute: string,
): Promise<boolean> {
  return unlessConditionFailed(() =>
    documentClient.send(
      new PutCommand({
        TableName: table,
        Item: item,
        ConditionExpression: 'attribute_not_exists(#key)',
        ExpressionAttributeNames: { '#key': keyAttribute },
      }),
    ),
  );
}

/** Puts an item if its ConditionExpression holds; false (nothing written) when it does not. */
export function conditionalPut(input: PutCommandInput & { ConditionExpression: string }): Promise<boolean> {
  return unlessConditionFailed(() => documentClient.send(new PutCommand(input)));
}

/**
 * A conditional put that says what it replaced: `{ written: true, old }` (`old` undefined when
 * there was no item), or `{ written: false }` when the condition did not hold.
 */
export async function conditionalReplace(
  input: PutCommandInput & { ConditionExpression: string },
): Promise<{ written: true; old: Record<string, unknown> | undefined } | { written: false }> {
  try {
    const out = await documentClient.send(new PutCommand({ ...input, ReturnValues: 'ALL_OLD' }));
    return { written: true, old: out.Attributes };
  } catch (error) {
    if (isConditionFailed(error)) return { written: false };
    throw error;
  }
}

/** Applies an update whose ConditionExpression must hold; false (nothing written) when it does not. */
export function conditionalUpdate(
  input: UpdateCommandInput & { ConditionExpression: string },
): Promise<boolean> {
  return unlessConditionFailed(() => documentClient.send(new UpdateCommand(input)));
}

/** Applies a conditional update and answers the item as it now is; undefined (nothing written) when the condition does not hold. */
export async function conditionalUpdateReturning(
  input: UpdateCommandInput & { ConditionExpression: string },
): Promise<Record<string, unknown> | undefined> {
  try {
    return (await documentClient.send(new UpdateCommand({ ...input, ReturnValues: 'ALL_NEW' }))).Attributes;
  } catch (error) {
    if (isConditionFailed(error)) return undefined;
    throw error;
  }
}

/** Deletes an item if its ConditionExpression holds; false (nothing deleted) when it does not. */
export function conditionalDelete(
  input: DeleteCommandInput & { ConditionExpression: string },
): Promise<boolean> {
  return unlessConditionFailed(() => documentClient.send(new DeleteCommand(input)));
}

/** Attempts of a transaction cancelled only by conflicts with concurrent writes of its items. */
const CONFLICT_ATTEMPTS = 8;

/** Cancelled only because another write touched one of its items at the same time (nothing applied). */
function conflictedOnly(error: unknown): boolean {
  if (!isTransactionCancelled(error)) return false;
  const codes = cancellationCodes(error).filter((code) => code !== 'None');
  return codes.length > 0 && codes.every((code) => code === 'TransactionConflict');
}

/**
 * Writes all items or none (TransactWriteItems). A transaction cancelled only by conflicts (two
 * requests updating one counter at once) applied nothing and runs again after a jittered backoff,
 * as the SDK does for throttling; any other cancellation (a failed condition) is the caller's.
 */
export async function transactWrite(items: TransactItem[]): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await documentClient.send(new TransactWriteCommand({ TransactItems: items }));
      return;
    } catch (error) {
      if (!conflictedOnly(error) || attempt >= CONFLICT_ATTEMPTS) throw error;
      const ceiling = Math.min(1000, 25 * 2 ** attempt);
      await new Promise((resolve) => setTimeout(resolve, ceiling / 2 + Math.random() * (ceiling / 2)));
    }
  }
}
