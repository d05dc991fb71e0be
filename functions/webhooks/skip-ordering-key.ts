import { apiHandler } from '../../shared/edge/handler';
import { skipOrderingKeyHead } from '../../shared/webhooks/api/ordering-keys';
import { orderingKeyContracts } from '../../shared/webhooks/api/ordering-keys-contract';

export const handler = apiHandler(
  orderingKeyContracts['POST /webhooks/{id}/ordering-keys/{key}/skip'],
  async (req) => ({
    statusCode: 202,
    body: await skipOrderingKeyHead(req.principal, req.params.id, req.params.key, req.body?.headDeliveryId),
  }),
);
