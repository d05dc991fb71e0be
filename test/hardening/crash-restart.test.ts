/**
 * Crash and restart: a local cloud of this file's own is SIGKILLed while integrations are
 * `creating` and webhook deliveries are queued behind a slow receiver, then started again on
 * the same state directory. No integration may stay in flight (resumed executions or the
 * reconciler move it on) and no notification may be lost: each reaches the receiver or the
 * deliveries DLQ.
 */

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ReceiveMessageCommand, SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, describe, expect, it } from 'vitest';
import { buildNotification } from '../../shared/notifications/publisher';
import { type Receiver, startReceiver } from '../integration/webhooks/receiver';
import { type RunningCloud, startCloudProcess } from '../support/local-cloud-process';
import { payloads, uid } from '../unit/integrations/fixtures';
import { request } from './support';

const NOTIFICATIONS = 60;
const INTEGRATIONS = 8;
const IN_FLIGHT = new Set(['creating', 'editing', 'deleting']);
// The receiver holds every answer until the crash: a delivery's POST waits for it up to a 30 s
// timeout (a hang guard: the crash comes within seconds of the first POST), so the deliveries
// consumer's batches (5 of 10, EVENT_SOURCE_POLLERS) stay busy and at most 50 of the 60
// deliveries reach the receiver before the kill, however loaded the machine. (With answers after
// 1 s and a 5 s timeout, all 60 had reached it in a loaded run before three creations were
// acknowledged.) The reconciler every second, with a 2 s grace for an integration whose workflow
// never started (killed between write and start). Queue visibility 5 s (instead of 6 × the
// consumer timeout): messages a consumer held when the process died come back within seconds,
// as they would in SQS after the real timeout.
const ENV = {
  LOG_LEVEL: 'WARN',
  LOCAL_QUEUE_VISIBILITY_SECONDS: '5',
  LOCAL_SCHEDULE_INTERVAL_MS: '1000',
  INTEGRATION_START_GRACE_SECONDS: '2',
  WEBHOOK_TIMEOUT_MS: '30000',
};

let receiver: Receiver | undefined;
const clouds: RunningCloud[] = [];

afterAll(async () => {
  for (const c of clouds) await c.stop();
  await receiver?.close();
});

function sqsFor(cloud: RunningCloud): SQSClient {
  return new SQSClient({
    endpoint: cloud.endpoints.sqs,
    region: cloud.endpoints.region,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    useQueueUrlAsEndpoint: false,
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Adds the notification texts found on the deliveries DLQ (read messages stay hidden 30 s). */
async function deadLettered(cloud: RunningCloud, texts: Set<string>): Promise<void> {
  const sqs = sqsFor(cloud);
  try {
    for (let empty = 0; empty < 2; ) {
      const out = await sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: cloud.endpoints.queues.deliveries?.dlqUrl,
          MaxNumberOfMessages: 10,
          VisibilityTimeout: 30,
        }),
      );
      if (!out.Messages?.length) empty++;
      for (const m of out.Messages ?? []) texts.add(JSON.parse(m.Body ?? '{}').text);
    }
  } finally {
    sqs.destroy();
  }
}

describe('crash and restart', () => {
  it('moves every integration on and loses no queued notification', async () => {
    receiver = await startReceiver();
    // No delivery is answered before the crash, so some are still queued and the rest in flight
    // at the kill; after it every delivery takes 1 s.
    let crashed: () => void = () => {};
    const afterCrash = new Promise<void>((resolve) => {
      crashed = resolve;
    });
    receiver.on('/slow', (_req, _body, res) => {
      void afterCrash.then(() => setTimeout(() => res.writeHead(200).end('ok'), 1000));
      return 200;
    });
    const first = await startCloudProcess({ env: ENV, durable: true });
    clouds.push(first);
    const base = first.endpoints.gateway;
    const key = first.adminApiKey;

    const hook = await request(base, 'POST', '/webhooks', {
      key,
      body: {
        webhooks: [
          {
            url: receiver.url('/slow'),
            name: 'crash',
            global: true,
            notificationType: ['modelCreated'],
            actionType: 'triggered',
          },
        ],
      },
    });
    expect(hook.status, hook.text).toBe(201);

    const texts = Array.from({ length: NOTIFICATIONS }, (_, i) => `crash notification ${i} ${uid()}`);
    const sqs = sqsFor(first);
    for (let i = 0; i < texts.length; i += 10) {
      await sqs.send(
        new SendMessageBatchCommand({
          QueueUrl: first.endpoints.queues.notifications?.url,
          Entries: texts.slice(i, i + 10).map((text, j) => ({
            Id: String(j),
            MessageBody: JSON.stringify(buildNotification({ notificationType: 'modelCreated', text })),
          })),
        }),
      );
    }
    sqs.destroy();

    // Creations race the crash: the cloud dies as soon as three have been acknowledged, so
    // some are mid-workflow and some may never have started their workflow at all.
    const types = ['CloudWarehouse', 'ClusterWarehouse', 'AnalyticsWarehouse', 'Lakehouse'];
    const acknowledged: string[] = [];
    let killed = false;
    const crash = () => {
      if (killed) return;
      killed = true;
      // The cloud's own process (not just its launcher) gets SIGKILL.
      process.kill(first.endpoints.pid, 'SIGKILL');
      crashed();
    };
    await Promise.all(
      Array.from({ length: INTEGRATIONS }, async (_, i) => {
        const payload = payloads(uid())[types[i % types.length] as string];
        const created = await request(base, 'POST', '/integrations', { key, body: payload }).catch(
          () => undefined,
        );
        if (created?.status === 202) acknowledged.push(String(created.body.id));
        if (acknowledged.length >= 3) crash();
      }),
    );
    crash();
    expect(acknowledged.length).toBeGreaterThanOrEqual(3);
    expect(receiver.byPath('/slow').length).toBeLessThan(NOTIFICATIONS);
    await first.kill();
    // At the crash, some lifecycle executions were still running (their records say so).
    const executionsDir = join(first.stateDir, 'executions');
    const running = readdirSync(executionsDir)
      .filter((f) => f.endsWith('.json'))
      .filter((f) => JSON.parse(readFileSync(join(executionsDir, f), 'utf8')).status === 'RUNNING');
    expect(running.length).toBeGreaterThan(0);

    await expect(fetch(`${base}/health`)).rejects.toThrow();
    await sleep(500);

    const second = await startCloudProcess({ stateDir: first.stateDir, env: ENV, durable: true });
    clouds.push(second);
    const base2 = second.endpoints.gateway;
    const deadline = Date.now() + 60_000;
    // Every integration the service holds — acknowledged or not — leaves its in-flight status.
    let stuck: string[] = [];
    let listed: { id: string; status: string }[] = [];
    while (Date.now() < deadline) {
      listed = (await request(base2, 'GET', '/integrations', { key })).body ?? [];
      stuck = listed.filter((i) => IN_FLIGHT.has(i.status)).map((i) => `${i.id}: ${i.status}`);
      if (stuck.length === 0) break;
      await sleep(250);
    }
    expect(stuck).toEqual([]);
    for (const id of acknowledged) expect(listed.map((i) => i.id)).toContain(id);

    // A hang guard: a fan-out step held when the process died is taken over once its lease
    // (the fan-out timeout + 5 s) has run out, then delivered.
    const notificationDeadline = Date.now() + 120_000;
    let missing: string[] = texts;
    const dead = new Set<string>();
    while (Date.now() < notificationDeadline && missing.length > 0) {
      const received = new Set(receiver.byPath('/slow').map((r) => JSON.parse(r.body).text as string));
      if (missing.some((t) => !received.has(t))) await deadLettered(second, dead);
      missing = texts.filter((t) => !received.has(t) && !dead.has(t));
      if (missing.length > 0) await sleep(500);
    }
    // Messages a consumer held when the process died became visible again after the (shortened)
    // visibility timeout and were delivered: nothing is lost.
    expect(missing, `missing: ${missing.join(', ')}`).toEqual([]);
  });
});
