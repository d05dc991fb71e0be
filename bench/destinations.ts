/**
 * Figure 17, AWS destinations (issue 40, ADR 0019), measured beside its baseline in one run with
 * the real code: deliveries/s through the deliveries consumer (imported into this process) to 10
 * webhooks whose destination is an SQS queue in the local cloud's sandbox account, each sent by
 * assuming its owner's role, against the same deliveries to 10 webhooks of the same owners at a
 * loopback HTTP receiver, rounds alternating; and the AssumeRole calls those SQS deliveries made,
 * per 1,000 deliveries, counted from the sandbox account's trail (`trail.jsonl`).
 *
 * The SQS webhooks are made through the local cloud's gateway (another process, as the API's
 * Lambda is in AWS), so their create-time trust check does not warm this process's credential
 * cache: the consumer starts with none, as a fresh container does. The calls are counted from
 * the first delivery of the warm-up on, and every SQS delivery must show in the trail as one
 * `SendMessage` into the queue.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { sandboxAwsCommand } from '../infra/cli/sandbox-aws';
import { queueDef } from '../shared/catalog/queues';
import { type BenchWebhook, consumerRunner, deliverHandler, makeWebhooks } from './delivery';
import type { BenchCloud } from './lib/cloud';
import { startReceiver } from './lib/receiver';
import { round } from './lib/stats';

export interface DestinationResult {
  deliveries: number;
  webhooks: number;
  concurrentInvocations: number;
  sqsPerSecond: number;
  httpPerSecond: number;
  ratio: number;
  failedItems: number;
  /** SQS deliveries, the warm-up's included: what the AssumeRole calls are counted over. */
  sqsDeliveries: number;
  /** `SendMessage` lines of the queue in the trail (must equal `sqsDeliveries`). */
  sendMessages: number;
  assumeRole: { customer: number; principal: number; per1000: number };
}

const NOTIFICATION = 'modelAccessRequested';
const WEBHOOKS = 10;
const INVOCATIONS = 4;

interface TrailLine {
  eventName: string;
  resource?: string;
  errorCode?: string;
}

/** The sandbox account's trail from byte `from` on. */
function trailSince(file: string, from: number): TrailLine[] {
  return readFileSync(file)
    .subarray(from)
    .toString('utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as TrailLine);
}

const sizeOf = (file: string) => {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
};

export async function destinationFigure(
  bench: BenchCloud,
  options: { deliveries: number },
): Promise<DestinationResult> {
  const { createPrincipalWithKey } = await import('../shared/auth/keys');
  const sandboxDir = process.env.SANDBOX_DIR as string;
  const account = bench.cloud.endpoints.sandboxAccount;
  const gateway = bench.cloud.endpoints.gateway;
  const sandbox = async (...args: string[]) =>
    (await sandboxAwsCommand(args, account, sandboxDir)).map((line) => JSON.parse(line));
  const api = async (method: string, path: string, key: string, body?: unknown) => {
    const answer = await request(`${gateway}${path}`, {
      method: method as 'GET' | 'POST',
      headers: { authorization: key, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await answer.body.text();
    if (answer.statusCode >= 300) throw new Error(`${method} ${path} answered ${answer.statusCode}: ${text}`);
    return JSON.parse(text);
  };

  const batchSize = queueDef('deliveries').consumer.batchSize;
  const receiver = await startReceiver();
  try {
    const handler = await deliverHandler();
    const tag = randomBytes(4).toString('hex');
    const [{ queueUrl }] = await sandbox('create-queue', '--name', `bench-destinations-${tag}`);
    const sets: Record<'http' | 'sqs', BenchWebhook[]> = { http: [], sqs: [] };
    const roles = new Set<string>();
    for (let i = 0; i < WEBHOOKS; i++) {
      const issued = await createPrincipalWithKey(`bench-destinations-${i}`, []);
      const owner = { userId: issued.userId, name: issued.name, permissions: [] };
      sets.http.push(...(await makeWebhooks(owner, receiver.url, [`/d/${i}`])));
      const { externalId } = await api('GET', '/webhooks/aws-trust', issued.apiKey);
      const [{ roleArn }] = await sandbox(
        'create-role',
        '--name',
        `bench-destinations-${tag}-${i}`,
        '--external-id',
        externalId,
      );
      roles.add(roleArn);
      const created = await api('POST', '/webhooks', issued.apiKey, {
        webhooks: [
          {
            name: `bench sqs ${i}`,
            global: false,
            notificationType: [NOTIFICATION],
            actionType: 'triggered',
            secret: `whsec_${randomBytes(32).toString('base64')}`,
            destination: { type: 'sqs', queueUrl, roleArn },
          },
        ],
      });
      sets.sqs.push({ id: created.createdWebhooks[0].id, ownerId: issued.userId, path: queueUrl });
    }

    const trailFile = join(sandboxDir, 'aws', 'trail.jsonl');
    const trailStart = sizeOf(trailFile);
    const consumer = consumerRunner(handler, INVOCATIONS);
    // Warm-up (connections, JIT; for SQS the role sessions too, counted below): not timed.
    await consumer.run(sets.http, batchSize * INVOCATIONS);
    const warm = await consumer.run(sets.sqs, batchSize * INVOCATIONS);
    let sqsDeliveries = warm.count;
    const totals = { http: { count: 0, ms: 0 }, sqs: { count: 0, ms: 0 } };
    const half = Math.ceil(options.deliveries / 2);
    for (let roundNo = 0; roundNo < 2; roundNo++) {
      for (const kind of roundNo === 0 ? (['http', 'sqs'] as const) : (['sqs', 'http'] as const)) {
        const r = await consumer.run(sets[kind], half);
        totals[kind].count += r.count;
        totals[kind].ms += r.ms;
        if (kind === 'sqs') sqsDeliveries += r.count;
      }
    }

    const trail = trailSince(trailFile, trailStart);
    const assumed = trail.filter((l) => l.eventName === 'AssumeRole' && !l.errorCode);
    const customer = assumed.filter((l) => roles.has(l.resource ?? '')).length;
    const principal = assumed.filter((l) => l.resource === account.principalArn).length;
    const sendMessages = trail.filter(
      (l) => l.eventName === 'SendMessage' && l.resource === queueUrl && !l.errorCode,
    ).length;
    const httpPerSecond = (totals.http.count / totals.http.ms) * 1000;
    const sqsPerSecond = (totals.sqs.count / totals.sqs.ms) * 1000;
    return {
      deliveries: totals.http.count + totals.sqs.count,
      webhooks: WEBHOOKS,
      concurrentInvocations: INVOCATIONS,
      sqsPerSecond: round(sqsPerSecond, 1),
      httpPerSecond: round(httpPerSecond, 1),
      ratio: round(sqsPerSecond / httpPerSecond),
      failedItems: consumer.failedItems,
      sqsDeliveries,
      sendMessages,
      assumeRole: {
        customer,
        principal,
        per1000: round(((customer + principal) / sqsDeliveries) * 1000, 1),
      },
    };
  } finally {
    await receiver.close();
  }
}
