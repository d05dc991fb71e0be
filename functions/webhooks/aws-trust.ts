import { apiHandler } from '../../shared/edge/handler';
import { awsTrust } from '../../shared/webhooks/api/aws-trust';
import { awsTrustContracts } from '../../shared/webhooks/api/aws-trust-contract';

export const handler = apiHandler(awsTrustContracts['GET /webhooks/aws-trust'], async ({ principal }) => ({
  body: await awsTrust(principal),
}));
