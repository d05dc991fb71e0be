import { dataSourceContracts } from '../../shared/data-sources/contracts';
import { listDataSourcePage } from '../../shared/data-sources/queries';
import { apiHandler } from '../../shared/edge/handler';

export const handler = apiHandler(dataSourceContracts['GET /data-sources'], async ({ query }) => ({
  body: await listDataSourcePage(query),
}));
