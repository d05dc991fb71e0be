/**
 * Figure 20's variants, their owners and webhooks (bench/publish-latency.ts times them):
 *
 * - **1,000 subscribed, 5 match**: one owner with 1,000 webhooks subscribed to the figure's
 *   notification type; 995 have a filter that is false for it, 5 have none and point at the
 *   receiver. The owner's quota (25 webhooks a user) stops 1,000 made through the API, and
 *   fan-out reads nothing of a webhook but its subscription item (ADR 0010: the filter, its
 *   version and name are on it), so the 995 are subscription items written as the webhooks store
 *   writes a filtered webhook's, under ids the webhook counter hands out; the 5 are real webhooks
 *   made between them, so they sit at positions 200, 400, …, 1,000 of the owner's subscription key
 *   (fan-out reads 100 a page and enqueues after each page: the last one waits for all ten pages).
 * - **AWS destination**: one owner whose webhook's destination is an SQS queue in the local
 *   cloud's sandbox account (figure 17's setup: the owner's ExternalId from `GET
 *   /webhooks/aws-trust`, a role trusting the stage's principal, the webhook made through the
 *   gateway); a delivery's "first byte" is the emulator's `SentTimestamp` of the message in the
 *   customer's queue (when the customer's SQS accepted it), read by a receive loop.
 */
import { randomBytes } from 'node:crypto';
import { ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { request } from 'undici';
import { SERVICE_ACCOUNT } from '../infra/local/customer-account/account';
import type { BenchCloud } from './lib/cloud';
import { batchPut } from './lib/seed';

/** The 995 webhooks' filter: false for every notification the figure publishes. */
const FALSE_FILTER = 'text.startsWith("never")';
export const MANY_WEBHOOKS = 1000;
export const MANY_MATCHING = 5;

/** An owner with MANY_WEBHOOKS subscribed webhooks of which MANY_MATCHING (at `path(j)`) match. */
export async function manyWebhooksOwner(
  notificationType: string,
  url: (path: string) => string,
  tag: string,
): Promise<{ userId: number; paths: string[] }> {
  const { createPrincipalWithKey } = await import('../shared/auth/keys');
  const { nextId } = await import('../shared/store/counters');
  const { documentClient } = await import('../shared/store/clients');
  const { tableName } = await import('../shared/store/tables');
  const { webhookSubscriptionKeys } = await import('../shared/webhooks/store/subscriptions');
  const { createWebhooks } = await import('../shared/webhooks/api/webhooks');
  const issued = await createPrincipalWithKey(`bench-latency-many-${tag}`, []);
  const owner = { userId: issued.userId, name: issued.name, permissions: [] };
  const updatedAt = new Date().toISOString();
  const between = MANY_WEBHOOKS / MANY_MATCHING - 1;
  const paths: string[] = [];
  for (let j = 0; j < MANY_MATCHING; j++) {
    const seeded: number[] = [];
    for (let i = 0; i < between; i++) seeded.push(await nextId('webhooks'));
    await batchPut(
      documentClient,
      seeded.flatMap((id) =>
        webhookSubscriptionKeys({
          createdBy: owner.userId,
          global: false,
          notificationType: [notificationType],
        }).map((subscriptionKey) => ({
          table: tableName('webhookSubscriptions'),
          item: {
            subscriptionKey,
            webhookId: id,
            createdBy: owner.userId,
            global: false,
            filter: FALSE_FILTER,
            updatedAt,
            webhookName: `bench latency unmatched ${id}`,
          } as Record<string, unknown>,
        })),
      ),
    );
    const path = `/many/${j}`;
    const made = await createWebhooks(
      owner,
      [
        {
          url: url(path),
          name: `bench latency many ${j}`,
          global: false,
          notificationType: [notificationType],
          actionType: 'receive',
        },
      ],
      'http://localhost',
    );
    if (made.errors.length > 0) throw new Error(`figure 20: webhook refused: ${JSON.stringify(made.errors)}`);
    paths.push(path);
  }
  return { userId: owner.userId, paths };
}

/**
 * An owner whose one webhook delivers into an SQS queue of the sandbox account, and a loop that
 * stamps each arriving message's `text` with the customer's SQS `SentTimestamp`.
 */
export async function destinationOwner(bench: BenchCloud, notificationType: string, tag: string) {
  const { createPrincipalWithKey } = await import('../shared/auth/keys');
  const { sandboxAwsCommand } = await import('../infra/cli/sandbox-aws');
  const account = bench.cloud.endpoints.sandboxAccount;
  const gateway = bench.cloud.endpoints.gateway;
  const sandbox = async (...args: string[]) =>
    (await sandboxAwsCommand(args, account, process.env.SANDBOX_DIR as string)).map((line) =>
      JSON.parse(line),
    );
  const api = async (method: 'GET' | 'POST', path: string, key: string, body?: unknown) => {
    const answer = await request(`${gateway}${path}`, {
      method,
      headers: { authorization: key, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await answer.body.text();
    if (answer.statusCode >= 300) throw new Error(`${method} ${path} answered ${answer.statusCode}: ${text}`);
    return JSON.parse(text);
  };
  const issued = await createPrincipalWithKey(`bench-latency-aws-${tag}`, []);
  const queueName = `bench-latency-${tag}`;
  const { externalId } = await api('GET', '/webhooks/aws-trust', issued.apiKey);
  const [{ roleArn }] = await sandbox(
    'create-role',
    '--name',
    `bench-latency-${tag}`,
    '--external-id',
    externalId,
  );
  const [{ queueUrl }] = await sandbox('create-queue', '--name', queueName);
  await api('POST', '/webhooks', issued.apiKey, {
    webhooks: [
      {
        name: 'bench latency aws',
        global: false,
        notificationType: [notificationType],
        actionType: 'triggered',
        secret: `whsec_${randomBytes(32).toString('base64')}`,
        destination: { type: 'sqs', queueUrl, roleArn },
      },
    ],
  });

  // The customer's queue, read as its owner reads it (the account's own emulator).
  const sqs = new SQSClient({
    region: 'us-east-1',
    endpoint: account.emulator,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  const url = `${account.emulator}/${SERVICE_ACCOUNT}/${queueName}`;
  const arrived = new Map<string, number>();
  let stopping = false;
  const loop = async () => {
    while (!stopping) {
      const out = await sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: url,
          MaxNumberOfMessages: 10,
          WaitTimeSeconds: 1,
          MessageSystemAttributeNames: ['SentTimestamp'],
          // Each receive hides what it got for good: every message is read once.
          VisibilityTimeout: 43_200,
        }),
      );
      for (const m of out.Messages ?? []) {
        const text = (JSON.parse(m.Body ?? '{}') as { text?: string }).text;
        if (text !== undefined && !arrived.has(text)) arrived.set(text, Number(m.Attributes?.SentTimestamp));
      }
    }
  };
  const running = loop();
  return {
    userId: issued.userId,
    arrived,
    async stop() {
      stopping = true;
      await running;
      sqs.destroy();
    },
  };
}
