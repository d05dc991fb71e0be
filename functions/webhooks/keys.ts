import { apiHandler } from '../../shared/edge/handler';
import { webhookContracts } from '../../shared/webhooks/api/contracts';
import { publishedKeys } from '../../shared/webhooks/api/keys';

export const handler = apiHandler(webhookContracts['GET /webhook-keys/{keySetId}'], async ({ params }) => {
  const { keys, maxAgeSeconds } = await publishedKeys(params.keySetId);
  return { body: { keys }, headers: { 'cache-control': `public, max-age=${maxAgeSeconds}` } };
});
