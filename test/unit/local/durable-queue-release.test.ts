/**
 * The local cloud's queue emulator with a state directory (`npm start`, the crash tests) makes a
 * message visible again at once when its visibility is set to 0 — how a retry "at once" goes on
 * (a keyed fan-out holding its head, a parked key's drain) — with its receive count kept, for a
 * standard and a FIFO queue alike (infra/local/sqs.ts works around fauxqs 2.4.1 losing it).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ChangeMessageVisibilityCommand,
  CreateQueueCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
} from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalSqs, localSqsClient, startSqs } from '../../../infra/local/sqs';

let dir: string;
let local: LocalSqs;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'causeway-durable-sqs-'));
  local = await startSqs(dir);
});
afterAll(async () => {
  await local.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('a durable local queue', () => {
  it.each([
    ['standard', 'release-standard', {}],
    ['FIFO', 'release-fifo.fifo', { FifoQueue: 'true' }],
  ] as const)(
    'gives a %s message released with visibility 0 out again, its receive count kept',
    async (_kind, name, attributes) => {
      const sqs = localSqsClient(local.endpoint);
      const { QueueUrl } = await sqs.send(
        new CreateQueueCommand({ QueueName: name, Attributes: { ...attributes, VisibilityTimeout: '30' } }),
      );
      await sqs.send(
        new SendMessageCommand({
          QueueUrl,
          MessageBody: 'again',
          ...('FifoQueue' in attributes ? { MessageGroupId: 'g', MessageDeduplicationId: 'd' } : {}),
        }),
      );
      const counts: string[] = [];
      for (let i = 0; i < 3; i++) {
        const { Messages = [] } = await sqs.send(
          new ReceiveMessageCommand({ QueueUrl, WaitTimeSeconds: 5, MessageSystemAttributeNames: ['All'] }),
        );
        const [message] = Messages;
        expect(message?.Body).toBe('again');
        counts.push(message?.Attributes?.ApproximateReceiveCount ?? '');
        await sqs.send(
          new ChangeMessageVisibilityCommand({
            QueueUrl,
            ReceiptHandle: message?.ReceiptHandle,
            VisibilityTimeout: 0,
          }),
        );
      }
      expect(counts).toEqual(['1', '2', '3']);
      sqs.destroy();
    },
  );
});
