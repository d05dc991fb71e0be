import { apiHandler } from '../../shared/edge/handler';
import { listOrderingKeys } from '../../shared/webhooks/api/ordering-keys';
import { orderingKeyContracts } from '../../shared/webhooks/api/ordering-keys-contract';

export const handler = apiHandler(orderingKeyContracts['GET /webhooks/{id}/ordering-keys'], async (req) => ({
  body: await listOrderingKeys(req.principal, req.params.id, req.query),
}));
