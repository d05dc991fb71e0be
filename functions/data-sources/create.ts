import { dataSourceContracts } from '../../shared/data-sources/contracts';
import { createDataSources } from '../../shared/data-sources/create';
import { apiHandler } from '../../shared/edge/handler';

export const handler = apiHandler(dataSourceContracts['POST /data-sources'], async ({ principal, body }) => ({
  statusCode: 201,
  body: await createDataSources(principal, body),
}));
