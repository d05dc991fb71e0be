/**
 * The sandbox AWS account (infra/local/customer-account/) as the AWS destination tests use it:
 * its CLI (`sandbox aws …`, one JSON value a line), a customer's ExternalId, roles, queues, topics
 * and buses made for a test, the messages a queue received, the account's trail, and the history
 * records of one webhook.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DeleteQueueCommand, SQSClient } from '@aws-sdk/client-sqs';
import { expect, inject } from 'vitest';
import { sandboxAwsCommand } from '../../../infra/cli/sandbox-aws';
import { call, eventually } from '../../support/api';
import { type AnyRecord, allHistory } from './helpers';

const endpoints = inject('endpoints');
const stateDir = inject('stateDir');
export const account = endpoints.sandboxAccount;
const run = randomUUID().slice(0, 8);

/** The notification type the tests' webhooks subscribe to, and their signing secret. */
export const TYPE = 'modelUserAdded';
export const SECRET = `whsec_${Buffer.alloc(24, 9).toString('base64')}`;

/** Runs `sandbox aws <args>` and parses each printed line. */
export const cli = async (...args: string[]) =>
  (await sandboxAwsCommand(args, account, join(stateDir, 'sandbox'))).map((line) => JSON.parse(line));

/** The caller's ExternalId (made on the first request). */
export async function externalIdOf(key: string): Promise<string> {
  const answer = await call('GET', '/webhooks/aws-trust', { key });
  expect(answer.status, answer.text).toBe(200);
  return answer.body.externalId as string;
}

let names = 0;
/** A name no other sandbox resource of this run has. */
export const uniqueName = (prefix: string) => `${prefix}-${run}-${++names}`;

/** A role trusting `externalId` (`deny`: an action the role may not make; `prefix`: its name's start). */
export async function sandboxRole(externalId: string, deny?: string, prefix = 'role'): Promise<string> {
  const args = ['create-role', '--name', uniqueName(prefix), '--external-id', externalId];
  const [{ roleArn }] = await cli(...args, ...(deny ? ['--deny', deny] : []));
  return roleArn as string;
}

/** A new queue: its name (`.fifo` included) and URL (`prefix`: its name's start). */
export async function sandboxQueue(
  fifo = false,
  prefix = 'queue',
): Promise<{ queue: string; queueUrl: string }> {
  const name = uniqueName(prefix);
  const [{ queueUrl }] = await cli('create-queue', '--name', name, ...(fifo ? ['--fifo'] : []));
  return { queue: fifo ? `${name}.fifo` : name, queueUrl };
}

/**
 * A new queue, and an SQS destination into it through a new role trusting `externalId` (`deny`:
 * an action the role may not make); the queue's and the role's names start with `prefix`.
 */
export async function queueDestination(externalId: string, prefix: string, deny?: string) {
  const roleArn = await sandboxRole(externalId, deny, `${prefix}-role`);
  const { queue, queueUrl } = await sandboxQueue(false, `${prefix}-queue`);
  return { queue, queueUrl, destination: { type: 'sqs', queueUrl, roleArn } };
}

/** Deletes a sandbox queue in the account's own emulator (what a receiver gone looks like). */
export async function deleteQueue(queue: string): Promise<void> {
  const emulator = new SQSClient({
    region: 'us-east-1',
    endpoint: account.emulator,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  await emulator.send(new DeleteQueueCommand({ QueueUrl: `${account.emulator}/000000000000/${queue}` }));
  emulator.destroy();
}

/** A personal webhook of the tests' type and secret, delivering to `target` (`{url}` or `{destination}`). */
export const hook = (name: string, target: Record<string, unknown>) => ({
  name,
  global: false,
  notificationType: [TYPE],
  actionType: 'receive',
  secret: SECRET,
  ...target,
});

/** Messages of a sandbox queue, read until `count` came (each `{body, attributes}`). */
export async function received(queue: string, count: number, ms = 30_000) {
  const messages: { body: string; attributes: Record<string, string> }[] = [];
  await eventually(
    async () => {
      messages.push(...(await cli('receive', '--queue', queue, '--wait', '1')));
      return messages.length;
    },
    (n) => n >= count,
    ms,
  );
  return messages;
}

/** The sandbox trail's lines of this call on this resource (a role's ARN, a queue's URL, a topic's ARN). */
export function trailOf(eventName: string, resource: string): Record<string, unknown>[] {
  return readFileSync(join(stateDir, 'sandbox', 'aws', 'trail.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line))
    .filter((entry) => entry.eventName === eventName && entry.resource === resource);
}

/** The webhook's history records, once there are at least `atLeast`. */
export const recordsOf = async (key: string, webhookId: number, atLeast: number, ms = 30_000) =>
  eventually(
    async () => (await allHistory(key)).filter((r: AnyRecord) => r.webhooksId === webhookId),
    (records) => records.length >= atLeast,
    ms,
  );

/** The webhook's view once its status is `status`. */
export const statusBecomes = async (key: string, webhookId: number, status: string, ms = 15_000) =>
  eventually(
    () => call('GET', `/webhooks/${webhookId}`, { key }),
    (answer) => answer.body.status === status,
    ms,
  );
