/**
 * The local cloud's stream pollers read a stream when a write in the cloud's process may have
 * changed it, not on a fast timer: `onDynamoWrites` sees every write request a DynamoDB endpoint
 * answered (through the SDK's own HTTP client, unchanged), and a woken poller polls again without
 * waiting out its quiet pause. The quiet pause here is an hour, so a missed wake hangs the test
 * into its timeout instead of passing late.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GetItemCommand, PutItemCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  type DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
} from '@aws-sdk/client-dynamodb-streams';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localDynamoClient } from '../../../infra/local/dynamodb';
import { onDynamoWrites, StreamPoller } from '../../../infra/local/streams';
import { streamConsumers } from '../../../shared/catalog/streams';
import { tempDir } from '../../support/temp';

const HOUR_MS = 3_600_000;

/** Answers every DynamoDB request with `{}` (enough for the SDK), as DynamoDB Local would answer a write. */
let server: Server;
let endpoint = '';
beforeAll(async () => {
  server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      response.writeHead(200, { 'content-type': 'application/x-amz-json-1.0' });
      response.end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const key = { pk: { S: 'a' } };

describe('waking the stream pollers on writes', () => {
  it('reports each write the endpoint answered, and no read or other endpoint', async () => {
    const client = localDynamoClient(endpoint);
    const other = localDynamoClient(endpoint.replace('127.0.0.1', 'localhost'));
    let writes = 0;
    const stop = onDynamoWrites(endpoint, () => {
      writes += 1;
    });
    try {
      await client.send(new PutItemCommand({ TableName: 't', Item: key }));
      await client.send(
        new UpdateItemCommand({
          TableName: 't',
          Key: key,
          UpdateExpression: 'SET n = :n',
          ExpressionAttributeValues: { ':n': { N: '1' } },
        }),
      );
      expect(writes).toBe(2);
      await client.send(new GetItemCommand({ TableName: 't', Key: key }));
      await other.send(new PutItemCommand({ TableName: 't', Item: key }));
      expect(writes).toBe(2);
      stop();
      await client.send(new PutItemCommand({ TableName: 't', Item: key }));
      expect(writes).toBe(2);
    } finally {
      stop();
      client.destroy();
      other.destroy();
    }
  });

  it('polls again when woken instead of waiting out the quiet pause, and stops at once', async () => {
    let polls = 0;
    let polled: () => void = () => undefined;
    const poller = new StreamPoller({
      dynamodb: {
        send: async () => ({ Table: { LatestStreamArn: 'arn:aws:dynamodb:local:stream/test' } }),
      } as never,
      streams: {
        // One open shard without records: every poll reads it, finds nothing and goes idle.
        send: async (command: object) => {
          const name = command.constructor.name;
          if (name === DescribeStreamCommand.name)
            return { StreamDescription: { Shards: [{ ShardId: 'shard-1' }] } };
          if (name === GetShardIteratorCommand.name) return { ShardIterator: 'iterator' };
          if (name !== GetRecordsCommand.name) throw new Error(`unexpected ${name}`);
          polls += 1;
          polled();
          return { Records: [], NextShardIterator: 'iterator' };
        },
      } as unknown as DynamoDBStreamsClient,
      tableName: 't',
      def: streamConsumers[0],
      functionName: 'test-consumer',
      stateDir: tempDir('causeway-stream-wake-'),
      idleMs: 0,
      quietMs: HOUR_MS,
      onError: (error) => {
        throw error;
      },
    });
    const pollCount = (n: number) =>
      new Promise<void>((resolve) => {
        polled = () => {
          if (polls >= n) resolve();
        };
        if (polls >= n) resolve();
      });
    poller.start();
    await pollCount(1);
    poller.wake();
    await pollCount(2);
    expect(polls).toBe(2);
    await poller.stop();
  });
});
