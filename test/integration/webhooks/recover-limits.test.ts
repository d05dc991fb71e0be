/**
 * Recover jobs are bounded (issue 34, item 10: a user ran three full recoveries back to back, 100,
 * 200 and 300 POSTs, after pointing the webhook at a new URL). The suite's cloud gives users a
 * budget of 40 re-sends per hour and a cool-down of 10 s (test/support/local-cloud-process.ts):
 * a job re-sends at most what the budget holds (and says it was capped), the webhook's next job
 * waits for the cool-down, and a job the spent budget cannot take is a 429 saying when it may run.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createKey, untilDone, useLocalCloudEnv } from '../../support/api';
import { batchPutHistory, createHooks } from './helpers';
import { type Receiver, startReceiver } from './receiver';

const TYPE = 'modelAccessRequested';
const BUDGET = 40;
const COOLDOWN_SECONDS = 10;
const FAILED = 50;

describe('recover limits', () => {
  let receiver: Receiver;

  beforeAll(async () => {
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver.close();
  });

  it('caps a job at the budget, cools the webhook down, and refuses what the spent budget cannot take with a 429', async () => {
    const owner = await createKey('recover-limits');
    const hook = (name: string) => ({
      name,
      url: receiver.url(`/${name}`),
      global: false,
      notificationType: [TYPE],
      actionType: 'triggered',
    });
    const [busy, idle] = (await createHooks(owner.apiKey, [hook('limits-busy'), hook('limits-idle')])) as [
      number,
      number,
    ];
    useLocalCloudEnv();
    const { newHistoryItem } = await import('../../../shared/webhooks/store/history');
    const since = new Date(Date.now() - 1_000).toISOString();
    const items = [];
    for (let i = 0; i < FAILED; i++) {
      items.push(
        await newHistoryItem({
          request: {
            text: `failed ${i}`,
            metadata: { notificationType: TYPE },
            webhookId: busy,
            webhookName: 'w',
          },
          response: { body: '' },
          statusCode: 500,
          durationMs: 1,
          notificationType: TYPE,
          webhooksActivityId: i,
          webhooksId: busy,
          url: 'http://127.0.0.1:9/old',
          name: 'w',
          actionType: 'triggered',
          createdBy: owner.userId,
          deliveryId: `msg_${randomBytes(16).toString('hex')}_${busy}`,
          attempt: 1,
          global: false,
        }),
      );
    }
    await batchPutHistory(items);
    const newest = Date.parse(items.at(-1)?.createdAt ?? '');
    while (Date.now() <= newest) await new Promise((r) => setTimeout(r, 5));
    const body = { since };

    // The window holds 50 to re-send; the job takes the 40 the budget holds, and says so.
    const started = await call('POST', `/webhooks/${busy}/recover`, { key: owner.apiKey, body });
    expect(started.status, started.text).toBe(202);
    expect(started.body).toMatchObject({ allowance: BUDGET, capped: true });
    const job = await untilDone(
      async () =>
        (await call('GET', `/webhooks/${busy}/recover/${started.body.jobId}`, { key: owner.apiKey })).body,
      (j) => j.status === 'completed' && j.resent >= BUDGET,
      { progress: (j) => [j.scanned, j.resent], what: 'the capped job' },
    );
    expect(job).toMatchObject({ deliveries: FAILED, enqueued: BUDGET, resent: BUDGET, allowance: BUDGET });
    expect(receiver.byPath('/limits-busy')).toHaveLength(BUDGET);

    // The cool-down is the webhook's: a job of another webhook that re-sends nothing still starts
    // on the spent budget, and its own next start waits for its cool-down.
    const idleJob = await call('POST', `/webhooks/${idle}/recover`, { key: owner.apiKey, body });
    expect(idleJob.status, idleJob.text).toBe(202);
    expect(idleJob.body).toMatchObject({ allowance: 0, capped: false });
    await untilDone(
      async () =>
        (await call('GET', `/webhooks/${idle}/recover/${idleJob.body.jobId}`, { key: owner.apiKey })).body,
      (j) => j.status === 'completed',
      { what: 'the empty job' },
    );
    const cooling = await call('POST', `/webhooks/${idle}/recover`, { key: owner.apiKey, body });
    expect(cooling.status, cooling.text).toBe(429);
    expect(cooling.body.message).toMatch(
      /last recover job ended less than 10 s ago; its next may start at \S+Z$/,
    );
    const coolingAfter = Number(cooling.headers.get('retry-after'));
    expect(coolingAfter).toBeGreaterThanOrEqual(1);
    expect(coolingAfter).toBeLessThanOrEqual(COOLDOWN_SECONDS);

    // Once the busy webhook's cool-down is over, the 10 left need 10/40 of an hour of budget: a 429
    // naming when (15 minutes after the first job started), in the message and in Retry-After.
    await new Promise((r) => setTimeout(r, COOLDOWN_SECONDS * 1000));
    const dry = await call('POST', `/webhooks/${busy}/recover?dryRun=true`, { key: owner.apiKey, body });
    expect(dry.body.deliveries).toBe(FAILED - BUDGET);
    const refused = await call('POST', `/webhooks/${busy}/recover`, { key: owner.apiKey, body });
    expect(refused.status, refused.text).toBe(429);
    expect(refused.body.message).toMatch(
      /^recover budget: this job would re-send 10 deliveries, and a user may re-send 40 per hour; the budget takes it at \S+Z/,
    );
    const retryAt = Date.parse(/takes it at (\S+Z)/.exec(refused.body.message)?.[1] ?? '');
    expect(retryAt - Date.parse(started.body.startedAt)).toBe(15 * 60_000);
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(Math.abs(Date.now() + retryAfter * 1000 - retryAt)).toBeLessThan(5_000);
    expect(receiver.byPath('/limits-busy')).toHaveLength(BUDGET);
  }, 120_000);
});
