import { dataSourceContracts } from '../../shared/data-sources/contracts';
import { deleteDataSource } from '../../shared/data-sources/delete';
import { apiHandler } from '../../shared/edge/handler';

export const handler = apiHandler(
  dataSourceContracts['DELETE /data-sources/{id}'],
  async ({ principal, params }) => ({
    body: await deleteDataSource(principal, params.id),
  }),
);
