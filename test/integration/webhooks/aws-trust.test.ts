/**
 * `GET /webhooks/aws-trust` through the local cloud (ADR 0019, issue 40 step 2): each user's
 * ExternalId is their own and stable, concurrent first requests agree on it, it is stored apart
 * from the principal's item, and the trust policy names the stage's delivery principal (an
 * AWS-shaped role ARN of the local account) and requires the ExternalId.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { call, createKey, useLocalCloudEnv } from '../../support/api';

const PRINCIPAL_ARN = 'arn:aws:iam::000000000000:role/causeway-local-webhook-delivery';
const EXTERNAL_ID = /^[A-Za-z0-9_-]{43}$/;

interface AwsTrust {
  externalId: string;
  principalArn: string;
  trustPolicy: {
    Version: string;
    Statement: {
      Effect: string;
      Principal: { AWS: string };
      Action: string;
      Condition: { StringEquals: Record<string, string> };
    }[];
  };
}

const trustOf = async (apiKey: string): Promise<AwsTrust> => {
  const answer = await call<AwsTrust>('GET', '/webhooks/aws-trust', { key: apiKey });
  expect(answer.status, answer.text).toBe(200);
  return answer.body;
};

describe('GET /webhooks/aws-trust', () => {
  let alice: { userId: number; apiKey: string };
  let bob: { userId: number; apiKey: string };
  beforeAll(async () => {
    [alice, bob] = await Promise.all([createKey('aws-trust-alice'), createKey('aws-trust-bob')]);
  });

  it('gives two users different ExternalIds, each the same on every request', async () => {
    const [a1, b1] = await Promise.all([trustOf(alice.apiKey), trustOf(bob.apiKey)]);
    expect(a1.externalId).toMatch(EXTERNAL_ID);
    expect(b1.externalId).toMatch(EXTERNAL_ID);
    expect(a1.externalId).not.toBe(b1.externalId);
    const [a2, b2] = await Promise.all([trustOf(alice.apiKey), trustOf(bob.apiKey)]);
    expect(a2).toEqual(a1);
    expect(b2).toEqual(b1);
  });

  it('answers concurrent first requests with one ExternalId', async () => {
    const carol = await createKey('aws-trust-carol');
    const answers = await Promise.all(Array.from({ length: 8 }, () => trustOf(carol.apiKey)));
    expect(new Set(answers.map((a) => a.externalId)).size).toBe(1);
    expect((await trustOf(carol.apiKey)).externalId).toBe(answers[0]?.externalId);
  });

  it('agrees under a race on the store itself: every first caller gets the winner’s id', async () => {
    const dave = await createKey('aws-trust-dave');
    useLocalCloudEnv();
    const { externalIdOf } = await import('../../../shared/webhooks/api/aws-trust');
    const ids = await Promise.all(Array.from({ length: 16 }, () => externalIdOf(dave.userId)));
    expect(new Set(ids).size).toBe(1);
    expect((await trustOf(dave.apiKey)).externalId).toBe(ids[0]);
  });

  it('names the delivery principal and requires the caller’s ExternalId in the trust policy', async () => {
    const trust = await trustOf(alice.apiKey);
    expect(trust.principalArn).toBe(PRINCIPAL_ARN);
    expect(trust.trustPolicy).toEqual({
      Version: '2012-10-17',
      Statement: [
        {
          Sid: 'CausewayWebhookDelivery',
          Effect: 'Allow',
          Principal: { AWS: PRINCIPAL_ARN },
          Action: 'sts:AssumeRole',
          Condition: { StringEquals: { 'sts:ExternalId': trust.externalId } },
        },
      ],
    });
  });

  it('gives an admin an ExternalId of their own', async () => {
    const admin = await createKey('aws-trust-admin', true);
    const [own, alices] = await Promise.all([trustOf(admin.apiKey), trustOf(alice.apiKey)]);
    expect(own.externalId).not.toBe(alices.externalId);
    expect(own.principalArn).toBe(PRINCIPAL_ARN);
  });

  it('keeps the ExternalId in an item of its own, never on the principal’s item', async () => {
    const { externalId } = await trustOf(bob.apiKey);
    useLocalCloudEnv();
    const { getItem } = await import('../../../shared/store/read');
    const { tableName } = await import('../../../shared/store/tables');
    const principal = await getItem<Record<string, unknown>>(tableName('principals'), { userId: bob.userId });
    expect(principal?.userId).toBe(bob.userId);
    expect(JSON.stringify(principal)).not.toContain(externalId);
    const item = await getItem<Record<string, unknown>>(tableName('awsExternalIds'), { userId: bob.userId });
    expect(item).toMatchObject({ userId: bob.userId, externalId });
  });

  it('refuses a request without a valid API key (401)', async () => {
    const missing = await call('GET', '/webhooks/aws-trust', { key: null });
    expect(missing.status).toBe(401);
    const wrong = await call('GET', '/webhooks/aws-trust', { key: 'not-a-key' });
    expect(wrong.status).toBe(401);
  });
});
