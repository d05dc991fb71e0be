import { dataSourceContracts } from '../../shared/data-sources/contracts';
import { getDataSourceView } from '../../shared/data-sources/queries';
import { apiHandler } from '../../shared/edge/handler';

export const handler = apiHandler(dataSourceContracts['GET /data-sources/{id}'], async ({ params }) => ({
  body: await getDataSourceView(params.id),
}));
