/**
 * The SDK clients built with `withoutSdkLogging` (shared/config/sdk-clients.ts): the SDK's logger
 * middleware, which filters each call's input and output for a logger that discards them, is gone
 * and the rest of the stack is as the SDK builds it; calls still go out signed as before.
 */
import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { withoutSdkLogging } from '../../../shared/config/sdk-clients';

const BASE = {
  region: 'us-east-1',
  endpoint: 'http://127.0.0.1:9',
  credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' },
};

describe('withoutSdkLogging', () => {
  it('takes the logger middleware out of the stack and leaves every other step', () => {
    const plain = new DynamoDBClient(BASE).middlewareStack.identify();
    const quiet = withoutSdkLogging(new DynamoDBClient(BASE)).middlewareStack.identify();
    expect(plain.some((entry) => entry.startsWith('loggerMiddleware'))).toBe(true);
    expect(quiet.some((entry) => entry.startsWith('loggerMiddleware'))).toBe(false);
    expect(quiet).toEqual(plain.filter((entry) => !entry.startsWith('loggerMiddleware')));
  });

  it('leaves the requests as the SDK sends them (signed, the same target)', async () => {
    let headers: Record<string, string> = {};
    const client = withoutSdkLogging(
      new DynamoDBClient({
        ...BASE,
        requestHandler: {
          handle: async (request: { headers: Record<string, string> }) => {
            headers = request.headers;
            throw new Error('not sent');
          },
        },
      }),
    );
    await expect(
      client.send(new GetItemCommand({ TableName: 't', Key: { pk: { S: 'k' } } })),
    ).rejects.toThrow('not sent');
    expect(headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\//);
    expect(headers['x-amz-target']).toBe('DynamoDB_20120810.GetItem');
  });
});
