/**
 * POST /webhooks/{id}/recover through the local cloud: a window of 2,000 failed deliveries (their
 * history seeded in the pipeline's own record layout) is re-sent, each exactly once, to the
 * webhook's current URL under its original webhook-id, while deliveries that later succeeded or
 * lie outside the window are not; the job reports the counts, a second recover meanwhile is a 409.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createKey, untilDone, useLocalCloudEnv } from '../../support/api';
import { allHistory, createHooks } from './helpers';
import { type Receiver, startReceiver } from './receiver';

const FAILED = 2000;
const LATER_SUCCEEDED = 150;
const BEFORE_WINDOW = 100;

describe('recover', () => {
  let receiver: Receiver;

  beforeAll(async () => {
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver.close();
  });

  it('re-sends each failed delivery of the window exactly once and reports the job’s counts', async () => {
    const owner = await createKey('recover-owner');
    const [id] = await createHooks(owner.apiKey, [
      {
        name: 'recovered',
        url: receiver.url('/recovered'),
        global: false,
        notificationType: ['modelAccessRequested'],
        actionType: 'triggered',
      },
    ]);
    const webhookId = id as number;
    useLocalCloudEnv();
    const { writeHistoryRecord } = await import('../../../shared/webhooks/store/history');
    const write = (deliveryId: string, attempt: number, statusCode: number) =>
      writeHistoryRecord({
        request: {
          text: deliveryId,
          metadata: { notificationType: 'modelAccessRequested' },
          webhookId,
          webhookName: 'old name',
        },
        response: { body: '' },
        statusCode,
        durationMs: 1,
        notificationType: 'modelAccessRequested',
        webhooksActivityId: 1,
        webhooksId: webhookId,
        url: 'http://127.0.0.1:9/old-url',
        name: 'old name',
        actionType: 'triggered',
        createdBy: owner.userId,
        deliveryId,
        attempt,
        global: false,
      });
    const newDelivery = () => `msg_${randomBytes(16).toString('hex')}_${webhookId}`;
    const inPool = async <T>(items: T[], run: (item: T) => Promise<unknown>) => {
      const queue = [...items];
      await Promise.all(
        Array.from({ length: 48 }, async () => {
          for (let item = queue.shift(); item !== undefined; item = queue.shift()) await run(item);
        }),
      );
    };
    await inPool(Array.from({ length: BEFORE_WINDOW }, newDelivery), (d) => write(d, 1, 500));
    await new Promise((r) => setTimeout(r, 20));
    const since = new Date().toISOString();
    await new Promise((r) => setTimeout(r, 5));
    const failed = Array.from({ length: FAILED }, newDelivery);
    // Most failed twice; the window holds both attempts, and the delivery is still sent once.
    await inPool(failed, async (d) => {
      await write(d, 1, 500);
      if (d.charCodeAt(10) % 2 === 0) await write(d, 2, 503);
    });
    const succeeded = Array.from({ length: LATER_SUCCEEDED }, newDelivery);
    await inPool(succeeded, async (d) => {
      await write(d, 1, 500);
      await write(d, 2, 200);
    });

    const body = { since };
    const dry = await call('POST', `/webhooks/${webhookId}/recover?dryRun=true`, { key: owner.apiKey, body });
    expect(dry.status, dry.text).toBe(200);
    expect(dry.body).toMatchObject({ dryRun: true, deliveries: FAILED, onlyFailed: true });
    expect(receiver.byPath('/recovered')).toHaveLength(0);

    const started = await call('POST', `/webhooks/${webhookId}/recover`, { key: owner.apiKey, body });
    expect(started.status, started.text).toBe(202);
    const jobId = started.body.jobId as string;
    expect(started.body).toMatchObject({ status: 'running', webhookId, onlyFailed: true });
    const second = await call('POST', `/webhooks/${webhookId}/recover`, { key: owner.apiKey, body });
    expect(second.status, second.text).toBe(409);

    const job = await untilDone(
      async () => (await call('GET', `/webhooks/${webhookId}/recover/${jobId}`, { key: owner.apiKey })).body,
      (j) => j.status === 'completed' && j.resent >= FAILED,
      { progress: (j) => [j.scanned, j.resent], what: 'the recover job' },
    );
    expect(job).toMatchObject({
      deliveries: FAILED + LATER_SUCCEEDED,
      alreadyDelivered: LATER_SUCCEEDED,
      enqueued: FAILED,
      resent: FAILED,
    });
    expect(job.finishedAt).toEqual(expect.any(String));

    const posts = receiver.byPath('/recovered');
    expect(posts).toHaveLength(FAILED);
    const ids = posts.map((p) => p.headers['webhook-id']);
    expect(new Set(ids).size).toBe(FAILED);
    expect([...ids].sort()).toEqual([...failed].sort());
    // The current URL and name; the original payload.
    expect(JSON.parse(posts[0]?.body ?? '{}')).toMatchObject({ webhookId, webhookName: 'recovered' });

    const records = (
      await allHistory(owner.apiKey, `&webhookId=${webhookId}&since=${encodeURIComponent(since)}`)
    ).filter((r) => r.retryOf !== undefined);
    expect(records).toHaveLength(FAILED);
    expect(new Set(records.map((r) => r.deliveryId)).size).toBe(FAILED);

    // Done: another recover may start, and nothing failed is left in the window.
    const again = await call('POST', `/webhooks/${webhookId}/recover?dryRun=true`, {
      key: owner.apiKey,
      body,
    });
    expect(again.body.deliveries).toBe(0);
    // A hang guard only: 2,000 re-sends through one local cloud take what the machine needs.
  }, 900_000);

  it('refuses a window in the future, backwards or beyond the retention with a 400 naming the field', async () => {
    const owner = await createKey('recover-bad');
    const [id] = await createHooks(owner.apiKey, [
      {
        name: 'bad-window',
        url: receiver.url('/bad-window'),
        global: false,
        notificationType: ['modelAccessRequested'],
        actionType: 'triggered',
      },
    ]);
    const day = 86_400_000;
    const iso = (ms: number) => new Date(ms).toISOString();
    for (const [body, field] of [
      [{ since: iso(Date.now() + day) }, 'since'],
      [{ since: iso(Date.now() - day), until: iso(Date.now() - 2 * day) }, 'until'],
      [{ since: iso(Date.now() - 400 * day) }, 'since'],
      [{}, 'since'],
      [{ since: 'yesterday' }, 'since'],
    ] as const) {
      const reply = await call('POST', `/webhooks/${id}/recover`, { key: owner.apiKey, body });
      expect(reply.status, JSON.stringify(body)).toBe(400);
      expect(reply.body.message).toContain(field);
    }
  });
});
