import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { apiHandler } from '../../shared/edge/handler';
import { serviceContracts } from '../../shared/service/api';
import { dynamodb } from '../../shared/store/clients';
import { tableName } from '../../shared/store/tables';

export const handler = apiHandler(serviceContracts['GET /health'], async () => {
  // Readiness: the function can reach its data store.
  await dynamodb.send(new DescribeTableCommand({ TableName: tableName('counters') }));
  return { body: { status: 'ok', service: 'causeway', time: new Date().toISOString() } };
});
