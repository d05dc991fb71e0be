/**
 * `sandbox aws …`: the local stage's sandbox AWS account (issue 40), as its owner uses it to
 * receive deliveries. Each command prints JSON. Queues and topics are made in the account's own
 * SQS/SNS emulator; roles and buses in its registry (`STATE_DIR/sandbox/aws`), which the
 * account's front reads on every call.
 *
 *   sandbox aws create-queue --name Q [--fifo]                 → {queueUrl, queueArn}
 *   sandbox aws create-topic --name T --queue Q                → {topicArn} (Q subscribed, raw delivery)
 *   sandbox aws create-bus --name B --queue Q                  → {eventBusArn} (every event to Q)
 *   sandbox aws create-role --name R --external-id X [--deny ACTION]…
 *                                                              → {roleArn}
 *   sandbox aws receive --queue Q [--wait S] [--max N]         one {body, attributes} per line, deleted
 */
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { CreateTopicCommand, SNSClient, SubscribeCommand } from '@aws-sdk/client-sns';
import {
  CreateQueueCommand,
  DeleteMessageCommand,
  GetQueueUrlCommand,
  ReceiveMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import {
  busArnOf,
  NAME_RULES,
  queueArnOf,
  queueUrlOf,
  roleArnOf,
  SANDBOX_REGION,
  SandboxAccountRegistry,
  SEND_ACTIONS,
  SERVICE_ACCOUNT,
  type SendAction,
  topicArnOf,
} from '../local/customer-account/account';

export class SandboxAwsUsageError extends Error {}

interface SandboxAccountEndpoints {
  emulator: string;
  principalArn: string;
}

/** Where the emulator holds a sandbox queue (it knows one account, the service's). */
const emulatorQueueUrl = (emulator: string, name: string) => `${emulator}/${SERVICE_ACCOUNT}/${name}`;

function named(value: string | undefined, rule: RegExp, flag: string, what: string): string {
  const name = value?.trim() ?? '';
  if (!rule.test(name)) throw new SandboxAwsUsageError(`${flag} must be a ${what} name as AWS allows it`);
  return name;
}

export async function sandboxAwsCommand(
  argv: string[],
  account: SandboxAccountEndpoints,
  sandboxDir: string,
): Promise<string[]> {
  const [sub, ...rest] = argv;
  const { values } = parseArgs({
    args: rest,
    options: {
      name: { type: 'string' },
      queue: { type: 'string' },
      fifo: { type: 'boolean', default: false },
      'external-id': { type: 'string' },
      deny: { type: 'string', multiple: true },
      wait: { type: 'string' },
      max: { type: 'string' },
    },
    strict: true,
  });
  const local = { region: SANDBOX_REGION, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } };
  const sqs = new SQSClient({ ...local, endpoint: account.emulator });
  const registry = new SandboxAccountRegistry(join(sandboxDir, 'aws'));
  /** The named queue, which must exist in the sandbox account. */
  const existingQueue = async (): Promise<string> => {
    const queue = named(values.queue, NAME_RULES.queue, '--queue', 'queue');
    try {
      await sqs.send(new GetQueueUrlCommand({ QueueName: queue }));
    } catch {
      throw new Error(
        `no queue ${queue} in the sandbox account: make it with sandbox aws create-queue --name ${queue}`,
      );
    }
    return queue;
  };
  try {
    switch (sub) {
      case 'create-queue': {
        let name = named(values.name, NAME_RULES.queue, '--name', 'queue');
        if (values.fifo && !name.endsWith('.fifo')) name = `${name}.fifo`;
        if (!values.fifo && name.endsWith('.fifo'))
          throw new SandboxAwsUsageError('--name ends in .fifo: add --fifo for a FIFO queue');
        await sqs.send(
          new CreateQueueCommand({ QueueName: name, Attributes: values.fifo ? { FifoQueue: 'true' } : {} }),
        );
        return [JSON.stringify({ queueUrl: queueUrlOf(name), queueArn: queueArnOf(name) })];
      }
      case 'create-topic': {
        const name = named(values.name, NAME_RULES.topic, '--name', 'topic');
        const queue = await existingQueue();
        const sns = new SNSClient({ ...local, endpoint: account.emulator });
        try {
          const fifo = name.endsWith('.fifo');
          const { TopicArn } = await sns.send(
            new CreateTopicCommand({ Name: name, Attributes: fifo ? { FifoTopic: 'true' } : {} }),
          );
          // Raw delivery: the queue receives the message and its attributes as published.
          await sns.send(
            new SubscribeCommand({
              TopicArn,
              Protocol: 'sqs',
              Endpoint: `arn:aws:sqs:${SANDBOX_REGION}:${SERVICE_ACCOUNT}:${queue}`,
              Attributes: { RawMessageDelivery: 'true' },
            }),
          );
        } finally {
          sns.destroy();
        }
        return [JSON.stringify({ topicArn: topicArnOf(name) })];
      }
      case 'create-bus': {
        const name = named(values.name, NAME_RULES.bus, '--name', 'event bus');
        const queue = await existingQueue();
        registry.putBus({ name, eventBusArn: busArnOf(name), queue });
        return [JSON.stringify({ eventBusArn: busArnOf(name) })];
      }
      case 'create-role': {
        const name = named(values.name, NAME_RULES.role, '--name', 'role');
        const externalId = values['external-id']?.trim() ?? '';
        if (!/^[\w+=,.@:/-]{2,1224}$/.test(externalId))
          throw new SandboxAwsUsageError(
            '--external-id X is required (the externalId GET /webhooks/aws-trust answers)',
          );
        const deny = values.deny ?? [];
        for (const action of deny)
          if (!(SEND_ACTIONS as readonly string[]).includes(action))
            throw new SandboxAwsUsageError(`--deny must name one of ${SEND_ACTIONS.join(', ')}`);
        const roleArn = roleArnOf(name);
        registry.putRole({
          roleArn,
          name,
          trustedPrincipal: account.principalArn,
          externalId,
          allowed: SEND_ACTIONS.filter((a): a is SendAction => !deny.includes(a)),
        });
        return [JSON.stringify({ roleArn })];
      }
      case 'receive': {
        const queue = await existingQueue();
        const wait = Number(values.wait ?? 0);
        const max = Number(values.max ?? 10);
        if (!Number.isInteger(wait) || wait < 0 || wait > 20)
          throw new SandboxAwsUsageError('--wait must be whole seconds from 0 to 20');
        if (!Number.isInteger(max) || max < 1 || max > 10)
          throw new SandboxAwsUsageError('--max must be from 1 to 10');
        const url = emulatorQueueUrl(account.emulator, queue);
        const { Messages = [] } = await sqs.send(
          new ReceiveMessageCommand({
            QueueUrl: url,
            MaxNumberOfMessages: max,
            WaitTimeSeconds: wait,
            MessageAttributeNames: ['All'],
          }),
        );
        const lines: string[] = [];
        for (const message of Messages) {
          const attributes = Object.fromEntries(
            Object.entries(message.MessageAttributes ?? {}).map(([k, v]) => [
              k,
              v.StringValue ?? v.BinaryValue,
            ]),
          );
          lines.push(JSON.stringify({ body: message.Body, attributes }));
          await sqs.send(new DeleteMessageCommand({ QueueUrl: url, ReceiptHandle: message.ReceiptHandle }));
        }
        return lines;
      }
      default:
        throw new SandboxAwsUsageError(`unknown sandbox aws command "${sub ?? ''}"`);
    }
  } finally {
    sqs.destroy();
  }
}
