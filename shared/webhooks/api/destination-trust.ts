/**
 * The trust check of create and PATCH (ADR 0019): before a destination is stored, its role is
 * assumed through the delivery principal with the webhook owner's ExternalId, as every send
 * will. A role that refuses is a 422 naming `destination.roleArn`, with the trust policy it needs
 * (nothing is stored). Permissions to send are not probed: a send the role may not make is a
 * failed delivery, recorded with AWS's code.
 */

import { AssumeRoleRefused, customerCredentials } from '../aws/credentials';
import { deliveryPrincipalArn, type TrustPolicy, trustPolicy } from '../aws-trust';
import type { Destination } from '../destination';
import { storedExternalId } from '../store/aws-trust';

/** The checked ExternalId to copy onto the webhook, or why the role was refused. */
export type TrustCheck = { externalId: string } | { problem: string; trustPolicy?: TrustPolicy };

/** Whether the owner's ExternalId lets the delivery principal assume the destination's role. */
export async function checkTrust(
  owner: number,
  destination: Destination,
  webhookId: number,
): Promise<TrustCheck> {
  const externalId = await storedExternalId(owner);
  if (externalId === undefined)
    return {
      problem:
        "no ExternalId has been made for the webhook's owner yet: GET /webhooks/aws-trust first, attach its trustPolicy to the role, then try again",
    };
  try {
    await customerCredentials({ roleArn: destination.roleArn, externalId, webhookId }, { fresh: true });
    return { externalId };
  } catch (error) {
    if (!(error instanceof AssumeRoleRefused)) throw error;
    return {
      problem: `AssumeRole refused (${error.code}: ${error.message}); the role must trust the delivery principal with the owner's ExternalId (sts:ExternalId): attach trustPolicy as its trust policy`,
      trustPolicy: trustPolicy(deliveryPrincipalArn(), externalId),
    };
  }
}
