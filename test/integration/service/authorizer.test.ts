/**
 * The Lambda authorizer called directly (as API Gateway would) against the local cloud's
 * DynamoDB: it authenticates keys and passes the principal on; it never denies, so the handler
 * can answer 401/403 in the service's error shape.
 */
import type { APIGatewayRequestAuthorizerEventV2 } from 'aws-lambda';
import { beforeAll, describe, expect, it } from 'vitest';
import { adminKey, createKey, revokeKeys, useLocalCloudEnv } from '../../support/api';
import { dynamoDbOperationsOf } from '../../support/dynamodb-operations';

type Handler = typeof import('../../../functions/authorizer').handler;
let authorize: Handler;
let store: typeof import('../../../shared/store/clients');

beforeAll(async () => {
  useLocalCloudEnv();
  ({ handler: authorize } = await import('../../../functions/authorizer'));
  store = await import('../../../shared/store/clients');
});

function event(authorization?: string): APIGatewayRequestAuthorizerEventV2 {
  return {
    version: '2.0',
    type: 'REQUEST',
    routeArn: 'arn:aws:execute-api:us-east-1:000000000000:api/$default/GET/me',
    identitySource: authorization ? [authorization] : [],
    routeKey: 'GET /me',
    rawPath: '/me',
    rawQueryString: '',
    headers: authorization ? { authorization } : {},
    requestContext: {} as APIGatewayRequestAuthorizerEventV2['requestContext'],
  } as APIGatewayRequestAuthorizerEventV2;
}

describe('authorizer', () => {
  it('authenticates an admin key, bare or with Bearer', async () => {
    for (const header of [adminKey(), `Bearer ${adminKey()}`]) {
      const result = await authorize(event(header));
      expect(result.isAuthorized).toBe(true);
      expect(result.context).toMatchObject({ authenticated: true, permissions: 'APPLICATION_ADMIN' });
      expect(result.context.userId).toBeTypeOf('number');
    }
  });

  it('passes a non-admin principal with no permissions', async () => {
    const { userId, apiKey } = await createKey('authorizer-user');
    const result = await authorize(event(apiKey));
    expect(result.context).toEqual({ authenticated: true, userId, name: 'authorizer-user', permissions: '' });
  });

  it('authenticates a key with one read: its item carries its principal', async () => {
    const { userId, apiKey } = await createKey('authorizer-one-read');
    const { result, operations: sent } = await dynamoDbOperationsOf(() => authorize(event(apiKey)));
    expect(sent).toEqual(['GetItemCommand']);
    expect(result.context).toEqual({
      authenticated: true,
      userId,
      name: 'authorizer-one-read',
      permissions: '',
    });
  });

  it('authenticates a key registered before its item carried the principal, from the principal’s item', async () => {
    const { userId, apiKey } = await createKey('authorizer-older-key', true);
    const { PutCommand } = await import('@aws-sdk/lib-dynamodb');
    const { tableName } = await import('../../../shared/store/tables');
    const { hashApiKey } = await import('../../../shared/auth/keys');
    // The key's item as it was written before the copy: hash, user and time only.
    const keyHash = hashApiKey(apiKey);
    await store.documentClient.send(
      new PutCommand({
        TableName: tableName('apiKeys'),
        Item: { keyHash, userId, createdAt: new Date().toISOString() },
      }),
    );
    const { result, operations: sent } = await dynamoDbOperationsOf(() =>
      authorize(event(`Bearer ${apiKey}`)),
    );
    expect(sent).toEqual(['GetItemCommand', 'GetItemCommand']);
    expect(result.context).toEqual({
      authenticated: true,
      userId,
      name: 'authorizer-older-key',
      permissions: 'APPLICATION_ADMIN',
    });
  });

  it('marks missing, unknown and revoked keys unauthenticated with a reason, without denying', async () => {
    expect((await authorize(event())).context).toEqual({
      authenticated: false,
      reason: 'a valid API key is required in the Authorization header',
    });
    expect((await authorize(event('cw_unknown'))).context).toEqual({
      authenticated: false,
      reason: 'the API key is not recognised',
    });
    const { userId, apiKey } = await createKey('authorizer-revoked');
    await revokeKeys(userId);
    const revoked = await authorize(event(`Bearer ${apiKey}`));
    expect(revoked.isAuthorized).toBe(true);
    expect(revoked.context).toEqual({ authenticated: false, reason: 'the API key has been revoked' });
  });
});
