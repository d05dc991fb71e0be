import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from './clients';
import { tableName } from './tables';

/**
 * Allocates the next integer id of a low-volume sequence (users, integrations, webhooks) with
 * one atomic ADD. High-volume records (history) must not use this: one hot item would cap
 * their write rate.
 */
export async function nextId(sequence: string): Promise<number> {
  const out = await documentClient.send(
    new UpdateCommand({
      TableName: tableName('counters'),
      Key: { name: sequence },
      UpdateExpression: 'ADD #v :one',
      ExpressionAttributeNames: { '#v': 'value' },
      ExpressionAttributeValues: { ':one': 1 },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  const value = out.Attributes?.value;
  if (typeof value !== 'number') throw new Error(`counter ${sequence} returned no value`);
  return value;
}
