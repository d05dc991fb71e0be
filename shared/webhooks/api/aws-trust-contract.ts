/**
 * The contract of `GET /webhooks/aws-trust` (ADR 0019). It stands apart from the webhooks' other
 * contracts (`./contracts.ts`, which build the whole webhook model), so the function behind it
 * builds only these schemas at init, as `POST /webhooks/filters/preview` does. Spread into
 * `contracts` in shared/openapi/contracts.ts.
 */
import * as z from 'zod/mini';
import type { RouteContract } from '../../catalog/contract';
import { described, withMeta } from '../../schema-meta';
import { TrustPolicySchema } from '../aws-trust';

const AwsTrustSchema = withMeta(
  z.object({
    externalId: described(
      z.string(),
      "the caller's ExternalId: 32 random bytes, base64url (43 characters), made on the first request and never changed; one for all of the caller's webhooks",
    ),
    principalArn: described(
      z.string(),
      "the stage's webhook delivery principal: the one role (fixed name, kept across deploys) that assumes customers' roles",
    ),
    trustPolicy: TrustPolicySchema,
  }),
  {
    id: 'AwsTrust',
    description:
      "What an AWS role of the caller's must trust for webhook deliveries into their account (docs/webhooks.md).",
  },
);

export const awsTrustContracts = {
  'GET /webhooks/aws-trust': {
    responses: {
      200: {
        description:
          "The caller's ExternalId, the delivery principal and the trust policy to attach to the role.",
        schema: AwsTrustSchema,
      },
    },
  },
} satisfies Record<string, RouteContract>;
