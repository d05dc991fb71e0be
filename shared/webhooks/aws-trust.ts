/**
 * The trust a customer grants for webhook deliveries into their AWS account (ADR 0019): a role
 * of theirs that trusts the stage's delivery principal, on condition of the ExternalId the
 * service made for them — AWS's defence against the confused deputy: another customer who names
 * that role cannot make the service assume it, since the service sends only the caller's own
 * ExternalId.
 *
 * The rules only (no I/O): the ExternalId's shape and the trust policy document. The id is
 * stored by `store/aws-trust.ts`, and `api/aws-trust.ts` answers `GET /webhooks/aws-trust`.
 */
import { randomBytes } from 'node:crypto';
import * as z from 'zod/mini';
import { DELIVERY_PRINCIPAL_ENV } from '../catalog/access';
import { requireEnv } from '../config/env';
import { described, withMeta } from '../schema-meta';

/** Random bytes in an ExternalId. */
const EXTERNAL_ID_BYTES = 32;

/** 32 bytes in base64url, unpadded: 43 characters, all within the set AWS allows for an ExternalId. */
export const EXTERNAL_ID = /^[A-Za-z0-9_-]{43}$/;

/**
 * A new ExternalId: 32 random bytes, base64url, drawn again while it starts with `-` or `_`. Made
 * once per principal, never changed. One in 32 base64url strings starts with `-`, which command
 * lines read as an option (`aws sts assume-role --external-id -x…`, this service's sandbox CLI),
 * so none does; that leaves 255.9 of the 256 bits.
 */
export function newExternalId(): string {
  for (;;) {
    const id = randomBytes(EXTERNAL_ID_BYTES).toString('base64url');
    if (/^[A-Za-z0-9]/.test(id)) return id;
  }
}

/** The IAM trust policy a customer attaches to their role (the JSON document, as an object). */
export const TrustPolicySchema = withMeta(
  z.object({
    Version: z.literal('2012-10-17'),
    Statement: z.array(
      z.object({
        Sid: z.string(),
        Effect: z.literal('Allow'),
        Principal: z.object({ AWS: described(z.string(), 'the delivery principal (`principalArn`)') }),
        Action: z.literal('sts:AssumeRole'),
        Condition: z.object({
          StringEquals: z.object({
            'sts:ExternalId': described(z.string(), "the caller's ExternalId (`externalId`)"),
          }),
        }),
      }),
    ),
  }),
  {
    id: 'AwsTrustPolicy',
    description:
      "An IAM role trust policy (the JSON document): the service's delivery principal may assume the role only with the caller's ExternalId.",
  },
);
export type TrustPolicy = z.infer<typeof TrustPolicySchema>;

/**
 * The trust policy to paste: the delivery principal may assume the role, and only while it sends
 * the customer's ExternalId.
 */
export function trustPolicy(principalArn: string, externalId: string): TrustPolicy {
  return {
    Version: '2012-10-17',
    Statement: [
      {
        Sid: 'CausewayWebhookDelivery',
        Effect: 'Allow',
        Principal: { AWS: principalArn },
        Action: 'sts:AssumeRole',
        Condition: { StringEquals: { 'sts:ExternalId': externalId } },
      },
    ],
  };
}

/** The stage's delivery principal (its role ARN, from the function's catalog access). */
export function deliveryPrincipalArn(): string {
  return requireEnv(DELIVERY_PRINCIPAL_ENV);
}
