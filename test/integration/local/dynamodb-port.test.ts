/**
 * The local cloud picks DynamoDB Local's port free and then hands it to the JVM; under a full
 * suite another process took it in between once, and the cloud died ("Failed to bind"). A JVM
 * that cannot bind is started again on another port: here the first port offered is held by
 * a listener of ours.
 */
import { createServer, type Server } from 'node:net';
import { ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, describe, expect, it } from 'vitest';
import { localDynamoClient, startDynamoDbLocal } from '../../../infra/local/dynamodb';
import { freePort } from '../../../infra/local/ports';

const held: Server[] = [];
afterAll(() => {
  for (const server of held) server.close();
});

function holdPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    held.push(server);
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      if (typeof address === 'object' && address) resolve(address.port);
      else reject(new Error('no port'));
    });
  });
}

describe('DynamoDB Local on a port taken between the probe and the bind', () => {
  it('starts again on another port and answers there', async () => {
    const taken = await holdPort();
    const offered: number[] = [];
    const dynamo = await startDynamoDbLocal(undefined, async () => {
      const port = offered.length === 0 ? taken : await freePort();
      offered.push(port);
      return port;
    });
    try {
      expect(offered[0]).toBe(taken);
      expect(offered).toHaveLength(2);
      expect(dynamo.port).toBe(offered[1]);
      const client = localDynamoClient(dynamo.endpoint);
      await expect(client.send(new ListTablesCommand({}))).resolves.toBeDefined();
      client.destroy();
    } finally {
      await dynamo.stop();
    }
  });
});
