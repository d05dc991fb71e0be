/**
 * POST /webhooks/{id}/recover through the local cloud: a window of 2,000 failed deliveries (their
 * history seeded in the pipeline's own record layout) is re-sent, each exactly once, to the
 * webhook's current URL under its original webhook-id, while deliveries that later succeeded or
 * lie outside the window are not; the job reports the counts, a second recover meanwhile is a 409.
 * On a local cloud of this file's own: 2,000 re-sends through the tier's deliveries queue would
 * hold up every delivery of the files running beside it.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { call, createKey, untilDone, useLocalCloudEnv } from '../../support/api';
import { allHistory, batchPutHistory, createHooks, HANG_GUARD_POST_TIMEOUT, onOwnCloud } from './helpers';

const FAILED = 2000;
const LATER_SUCCEEDED = 50;
const BEFORE_WINDOW = 50;

describe('recover', () => {
  const own = onOwnCloud(HANG_GUARD_POST_TIMEOUT);

  it('re-sends each failed delivery of the window exactly once and reports the job’s counts', async () => {
    // An admin: 2,000 re-sends are past a user's hourly budget in the suite (recover-limits.test.ts).
    const owner = await createKey('recover-owner', true);
    const [id] = await createHooks(owner.apiKey, [
      {
        name: 'recovered',
        url: own.receiver.url('/recovered'),
        global: false,
        notificationType: ['modelAccessRequested'],
        actionType: 'triggered',
      },
    ]);
    const webhookId = id as number;
    useLocalCloudEnv();
    const { newHistoryItem } = await import('../../../shared/webhooks/store/history');
    const record = (deliveryId: string, attempt: number, statusCode: number) =>
      newHistoryItem({
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
    // Records are built in time order here (their ids carry the time: at most one per millisecond,
    // so a fast builder runs its clock ahead of the wall clock) and written in batches.
    const items: Awaited<ReturnType<typeof record>>[] = [];
    for (const d of Array.from({ length: BEFORE_WINDOW }, newDelivery)) items.push(await record(d, 1, 500));
    const lastAt = () => Date.parse(items[items.length - 1]?.createdAt ?? '');
    const since = new Date(Math.max(Date.now(), lastAt() + 1)).toISOString();
    const failed = Array.from({ length: FAILED }, newDelivery);
    // Some failed twice: the window holds both attempts, and the delivery is still sent once.
    for (const [i, d] of failed.entries()) {
      items.push(await record(d, 1, 500));
      if (i % 8 === 0) items.push(await record(d, 2, 503));
    }
    const succeeded = Array.from({ length: LATER_SUCCEEDED }, newDelivery);
    for (const d of succeeded) items.push(await record(d, 1, 500), await record(d, 2, 200));
    await batchPutHistory(items);
    // The window's default end is "now": let the wall clock pass the newest record.
    while (Date.now() <= lastAt()) await new Promise((r) => setTimeout(r, lastAt() - Date.now() + 1));

    const body = { since };
    const dry = await call('POST', `/webhooks/${webhookId}/recover?dryRun=true`, { key: owner.apiKey, body });
    expect(dry.status, dry.text).toBe(200);
    expect(dry.body).toMatchObject({ dryRun: true, deliveries: FAILED, onlyFailed: true });
    expect(own.receiver.byPath('/recovered')).toHaveLength(0);

    const jobStart = new Date().toISOString();
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

    const posts = own.receiver.byPath('/recovered');
    expect(posts).toHaveLength(FAILED);
    const ids = posts.map((p) => p.headers['webhook-id']);
    expect(new Set(ids).size).toBe(FAILED);
    expect([...ids].sort()).toEqual([...failed].sort());
    // The current URL and name; the original payload.
    expect(JSON.parse(posts[0]?.body ?? '{}')).toMatchObject({ webhookId, webhookName: 'recovered' });

    // Every record since the job started is one of its re-sends.
    const records = await allHistory(
      owner.apiKey,
      `&webhookId=${webhookId}&since=${encodeURIComponent(jobStart)}`,
    );
    expect(records).toHaveLength(FAILED);
    expect(records.every((r) => r.retryOf !== undefined && r.statusCode === 200)).toBe(true);
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
        url: own.receiver.url('/bad-window'),
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
