/**
 * The trust a customer grants for deliveries into their AWS account (ADR 0019): the ExternalId's
 * shape, the trust policy document, the get-or-create rule that makes concurrent first requests
 * agree, and the principal ARN the local stage answers.
 */
import { describe, expect, it } from 'vitest';
import { localDeliveryPrincipalArn } from '../../../infra/local/env';
import { DELIVERY_PRINCIPAL_ENV } from '../../../shared/catalog/access';
import { ConfigurationError, withScopedEnvironment } from '../../../shared/config/env';
import { externalIdOf } from '../../../shared/webhooks/api/aws-trust';
import { awsTrustContracts } from '../../../shared/webhooks/api/aws-trust-contract';
import {
  deliveryPrincipalArn,
  EXTERNAL_ID,
  newExternalId,
  trustPolicy,
} from '../../../shared/webhooks/aws-trust';

const PRINCIPAL = 'arn:aws:iam::123456789012:role/causeway-dev-webhook-delivery';
/** What IAM accepts as an ExternalId (sts:AssumeRole): 2 to 1,224 of these characters. */
const AWS_EXTERNAL_ID = /^[\w+=,.@:/-]{2,1224}$/;
/** An IAM role ARN. */
const ROLE_ARN = /^arn:aws:iam::\d{12}:role\/[\w+=,.@-]{1,64}$/;

/** An in-memory ExternalId table: a read that yields first, and an atomic conditional create. */
function memoryStore() {
  const items = new Map<number, string>();
  const calls = { reads: 0, creates: 0, lost: 0 };
  return {
    items,
    calls,
    async read(userId: number) {
      calls.reads++;
      await new Promise((resolve) => setImmediate(resolve));
      return items.get(userId);
    },
    async createIfAbsent(userId: number, externalId: string) {
      calls.creates++;
      await new Promise((resolve) => setImmediate(resolve));
      if (items.has(userId)) {
        calls.lost++;
        return false;
      }
      items.set(userId, externalId);
      return true;
    },
  };
}

describe('ExternalIds', () => {
  it('are 32 random bytes in base64url: 43 characters AWS accepts as an ExternalId', () => {
    const id = newExternalId();
    expect(id).toMatch(EXTERNAL_ID);
    expect(id).toMatch(AWS_EXTERNAL_ID);
    expect(Buffer.from(id, 'base64url')).toHaveLength(32);
    expect(Buffer.from(id, 'base64url').toString('base64url')).toBe(id);
  });

  it('never start with - or _ (a command line would read -… as an option)', () => {
    // One in 32 base64url strings starts with "-": 4,000 draws would show it ~125 times.
    const ids = Array.from({ length: 4000 }, newExternalId);
    expect(ids.filter((id) => !/^[A-Za-z0-9]/.test(id))).toEqual([]);
  });

  it('never repeat', () => {
    const ids = Array.from({ length: 2000 }, newExternalId);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('are made on first request and then always the same', async () => {
    const store = memoryStore();
    const first = await externalIdOf(7, store);
    expect(first).toMatch(EXTERNAL_ID);
    expect(store.items.get(7)).toBe(first);
    for (let i = 0; i < 3; i++) expect(await externalIdOf(7, store)).toBe(first);
    expect(store.calls.creates).toBe(1);
  });

  it('differ between users', async () => {
    const store = memoryStore();
    const [a, b] = [await externalIdOf(1, store), await externalIdOf(2, store)];
    expect(a).not.toBe(b);
  });

  it('agree between concurrent first requests: the ones that lose the create answer the winner’s', async () => {
    const store = memoryStore();
    const answers = await Promise.all(Array.from({ length: 12 }, () => externalIdOf(9, store)));
    expect(new Set(answers)).toEqual(new Set([store.items.get(9)]));
    // Every request found none, so every one tried to create it, and all but one lost.
    expect(store.calls.creates).toBe(12);
    expect(store.calls.lost).toBe(11);
  });

  it('are never replaced: a create that loses reads the stored one, not its own', async () => {
    const stored = newExternalId();
    let reads = 0;
    const answer = await externalIdOf(3, {
      // None at first (the winner had not written yet), the winner's afterwards.
      read: async () => (reads++ === 0 ? undefined : stored),
      createIfAbsent: async () => false,
    });
    expect(answer).toBe(stored);
  });
});

describe('the trust policy to paste', () => {
  const externalId = newExternalId();
  const policy = trustPolicy(PRINCIPAL, externalId);

  it('lets the delivery principal assume the role, and only with the caller’s ExternalId', () => {
    expect(policy.Version).toBe('2012-10-17');
    expect(policy.Statement).toHaveLength(1);
    const [statement] = policy.Statement;
    expect(statement?.Effect).toBe('Allow');
    expect(statement?.Action).toBe('sts:AssumeRole');
    expect(statement?.Principal).toEqual({ AWS: PRINCIPAL });
    expect(statement?.Condition).toEqual({ StringEquals: { 'sts:ExternalId': externalId } });
  });

  it('is the JSON document IAM takes, with no wildcard', () => {
    const text = JSON.stringify(policy);
    expect(JSON.parse(text)).toEqual(policy);
    expect(text).not.toContain('*');
  });

  it('is what the route’s contract documents', () => {
    const schema = awsTrustContracts['GET /webhooks/aws-trust'].responses[200].schema;
    expect(schema.safeParse({ externalId, principalArn: PRINCIPAL, trustPolicy: policy }).success).toBe(true);
    expect(
      schema.safeParse({
        externalId,
        principalArn: PRINCIPAL,
        trustPolicy: {
          ...policy,
          Statement: [{ ...policy.Statement[0], Principal: { AWS: '*' }, Condition: {} }],
        },
      }).success,
    ).toBe(false);
  });
});

describe('the delivery principal', () => {
  it('comes from the function’s catalog binding, and its absence is a configuration error', () => {
    const governs = new Set([DELIVERY_PRINCIPAL_ENV]);
    withScopedEnvironment({ governs, values: { [DELIVERY_PRINCIPAL_ENV]: PRINCIPAL } }, () =>
      expect(deliveryPrincipalArn()).toBe(PRINCIPAL),
    );
    withScopedEnvironment({ governs, values: {} }, () =>
      expect(() => deliveryPrincipalArn()).toThrow(ConfigurationError),
    );
  });

  it('is, on the local stage, an AWS-shaped role ARN of the local account with the stage’s fixed name', () => {
    const arn = localDeliveryPrincipalArn('local');
    expect(arn).toBe('arn:aws:iam::000000000000:role/causeway-local-webhook-delivery');
    expect(arn).toMatch(ROLE_ARN);
  });
});
