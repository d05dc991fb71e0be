import { apiHandler } from '../../shared/edge/handler';
import { resumeOrderingKey } from '../../shared/webhooks/api/ordering-keys';
import { orderingKeyContracts } from '../../shared/webhooks/api/ordering-keys-contract';

export const handler = apiHandler(
  orderingKeyContracts['POST /webhooks/{id}/ordering-keys/{key}/resume'],
  async (req) => ({
    statusCode: 202,
    body: await resumeOrderingKey(req.principal, req.params.id, req.params.key),
  }),
);
