import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { dynamodb } from './clients';
import { tableName } from './tables';

/** Readiness: resolves when the function can reach its data store (DescribeTable on a cataloged table). */
export async function assertStoreReachable(): Promise<void> {
  await dynamodb.send(new DescribeTableCommand({ TableName: tableName('counters') }));
}
