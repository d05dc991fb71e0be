/**
 * The ordered intake (issue 41, ADR 0020): a notification with an `orderingKey` goes to the FIFO
 * intake with its key as message group, in the order published; the CLI publishes a JSON-lines
 * file in order and refuses a bad line before sending any; a keyed fan-out that continues holds
 * its key's head instead of sending a follow-up behind the key's later notifications.
 */
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DeleteMessageCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { MessageContext } from '../../../shared/edge/queue/contract';
import { createKey, untilDone, useLocalCloudEnv } from '../../support/api';
import { runCli } from '../../support/cli';
import { tempDir } from '../../support/temp';
import { createHooks, personalHook, pipelineMarker } from './helpers';
import { type Receiver, startReceiver } from './receiver';

let receiver: Receiver;
let dir: string;
beforeAll(async () => {
  receiver = await startReceiver();
  dir = tempDir('ordering-intake');
});
afterAll(async () => {
  await receiver.close();
});

const cli = (args: string[]) => runCli(inject('stateDir'), args);
const TYPE = 'taskValidated';

describe('notifications with an ordering key', () => {
  it('notify --file publishes every line in order, keyed ones to the ordered intake, and each is delivered', async () => {
    const owner = await createKey('ordering-intake-file');
    const name = `intake-${randomUUID().slice(0, 8)}`;
    await createHooks(owner.apiKey, [personalHook(receiver, name, TYPE)]);
    const lines = Array.from({ length: 12 }, (_, i) =>
      JSON.stringify({
        notificationType: TYPE,
        text: `n${i}`,
        recipients: [owner.userId],
        // Two keys, and every third line without a key (the notifications queue).
        ...(i % 3 === 2 ? {} : { orderingKey: `dataSource:${i % 2}` }),
      }),
    );
    const file = join(dir, 'notifications.jsonl');
    writeFileSync(file, `${lines.join('\n')}\n\n`);
    const run = await cli(['notify', '--file', file]);
    expect(run.code, run.stderr).toBe(0);
    const printed = run.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(printed.map((p) => p.notification.text)).toEqual(lines.map((_, i) => `n${i}`));
    expect(printed.every((p) => typeof p.messageId === 'string' && p.messageId.length > 0)).toBe(true);
    expect(printed.filter((p) => p.notification.orderingKey !== undefined)).toHaveLength(8);
    await untilDone(
      async () => receiver.byPath(`/${name}`).length,
      (n) => n >= lines.length,
      { what: 'every notification of the file delivered' },
    );
    await pipelineMarker(receiver, owner);
    const texts = receiver.byPath(`/${name}`).map((p) => JSON.parse(p.body).text as string);
    expect(texts.sort()).toEqual(lines.map((_, i) => `n${i}`).sort());
  });

  it('notify --file names the first bad line and publishes nothing (exit 1)', async () => {
    const owner = await createKey('ordering-intake-bad-line');
    const name = `intake-bad-${randomUUID().slice(0, 8)}`;
    await createHooks(owner.apiKey, [personalHook(receiver, name, TYPE)]);
    const good = JSON.stringify({ notificationType: TYPE, text: 'first', recipients: [owner.userId] });
    const file = join(dir, 'bad.jsonl');
    writeFileSync(
      file,
      [
        good,
        good,
        JSON.stringify({ notificationType: TYPE, text: 'spaced', orderingKey: 'has space' }),
        '{not json',
      ].join('\n'),
    );
    const run = await cli(['notify', '--file', file]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('line 3');
    expect(run.stderr).toContain('orderingKey');
    expect(run.stdout).toBe('');
    const notJson = join(dir, 'not-json.jsonl');
    writeFileSync(notJson, `${good}\n{not json\n`);
    const second = await cli(['notify', '--file', notJson]);
    expect(second.code).toBe(1);
    expect(second.stderr).toContain('line 2: not JSON');
    // Nothing of either file was sent: a marker through the pipeline arrives, and still no POST.
    await pipelineMarker(receiver, owner);
    expect(receiver.byPath(`/${name}`)).toHaveLength(0);
  });

  it('notify --ordering-key refuses a key SQS would refuse, naming the field', async () => {
    for (const key of ['has space', 'x'.repeat(129), 'é']) {
      const run = await cli(['notify', '--type', TYPE, '--text', 't', '--ordering-key', key]);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain('orderingKey');
    }
  });

  it('the publisher puts keyed notifications on the FIFO intake, a group per key, in order', async () => {
    useLocalCloudEnv();
    const { sendInOrder } = await import('../../../shared/store/queues');
    const { queueEnvVar } = await import('../../../shared/catalog/queues');
    // A queue of this test's own (the cloud's consumer drains the intake): the same adapter call.
    const { CreateQueueCommand } = await import('@aws-sdk/client-sqs');
    const sqs = new SQSClient({ useQueueUrlAsEndpoint: false });
    const created = await sqs.send(
      new CreateQueueCommand({
        QueueName: `ordering-intake-${randomUUID().slice(0, 8)}.fifo`,
        Attributes: { FifoQueue: 'true' },
      }),
    );
    const own = created.QueueUrl as string;
    const saved = process.env[queueEnvVar('notificationsOrdered')];
    // fauxqs's queue URL has the loopback IP inside its host name: the path on the endpoint.
    process.env[queueEnvVar('notificationsOrdered')] = new URL(
      own.replace(/^[a-z]+:\/\/[^/]+/, ''),
      process.env.AWS_ENDPOINT_URL_SQS,
    ).href;
    try {
      const messages = Array.from({ length: 25 }, (_, i) => ({
        body: `m${i}`,
        groupId: `key-${i % 3}`,
        deduplicationId: randomUUID(),
      }));
      const ids = await sendInOrder('notificationsOrdered', messages);
      expect(ids).toHaveLength(25);
      const seen = new Map<string, number[]>();
      await untilDone(
        async () => {
          const out = await sqs.send(
            new ReceiveMessageCommand({
              QueueUrl: process.env[queueEnvVar('notificationsOrdered')],
              MaxNumberOfMessages: 10,
              MessageSystemAttributeNames: ['MessageGroupId'],
              VisibilityTimeout: 300,
            }),
          );
          // A group's next message comes once the one before it is deleted.
          for (const m of out.Messages ?? []) {
            const group = m.Attributes?.MessageGroupId as string;
            seen.set(group, [...(seen.get(group) ?? []), Number(m.Body?.slice(1))]);
            await sqs.send(
              new DeleteMessageCommand({
                QueueUrl: process.env[queueEnvVar('notificationsOrdered')],
                ReceiptHandle: m.ReceiptHandle,
              }),
            );
          }
          return [...seen.values()].flat().length;
        },
        (n) => n >= 25,
        { what: 'every message received' },
      );
      for (const [group, order] of seen) {
        const expected = messages.flatMap((m, i) => (m.groupId === group ? [i] : []));
        expect(order, group).toEqual(expected);
      }
    } finally {
      if (saved === undefined) delete process.env[queueEnvVar('notificationsOrdered')];
      else process.env[queueEnvVar('notificationsOrdered')] = saved;
    }
  });

  it('a keyed fan-out that continues holds its head and goes on from its mark, one delivery per webhook', async () => {
    useLocalCloudEnv();
    const { buildNotification } = await import('../../../shared/notifications/publisher');
    const { fanOut } = await import('../../../shared/webhooks/pipeline/fan-out');
    const owner = await createKey('ordering-intake-steps');
    const names = Array.from({ length: 7 }, (_, i) => `held-${i}-${randomUUID().slice(0, 6)}`);
    await createHooks(
      owner.apiKey,
      names.map((name) => personalHook(receiver, name, TYPE)),
    );
    const notification = buildNotification({
      notificationType: TYPE,
      text: 'wide and keyed',
      recipients: [owner.userId],
      orderingKey: `user:${owner.userId}`,
      id: `held-${randomUUID()}`,
    });
    const context: MessageContext = {
      attempt: 1,
      redelivered: false,
      deadline: Date.now() + 30_000,
      messageId: randomUUID(),
      groupId: notification.orderingKey as string,
    };
    // Steps of 3 here: the same message comes back (a retry now, never a follow-up) until done.
    process.env.FANOUT_CHUNK = '3';
    const answers: string[] = [];
    try {
      for (let i = 0; i < 10; i++) {
        const next = await fanOut(notification, { ...context, redelivered: i > 0 });
        answers.push(next.kind === 'retry' ? `retry ${next.delaySeconds}` : next.kind);
        if (next.kind !== 'retry') break;
      }
      // Taken again after it was done: nothing more.
      const again = await fanOut(notification, { ...context, redelivered: true });
      expect(again).toEqual({ kind: 'done', result: { deliveries: 0 } });
    } finally {
      delete process.env.FANOUT_CHUNK;
    }
    expect(answers).toEqual(['retry 0', 'retry 0', 'done']);
    await untilDone(
      async () => names.flatMap((name) => receiver.byPath(`/${name}`)).length,
      (n) => n >= names.length,
      { what: 'the held fan-out delivered' },
    );
    await pipelineMarker(receiver, owner);
    expect(names.map((name) => receiver.byPath(`/${name}`).length)).toEqual(names.map(() => 1));
  });
});
