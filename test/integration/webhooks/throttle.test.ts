/**
 * A throttled webhook through the local cloud. Every attempt POSTs no earlier than its slot of the
 * webhook's delivery clock, so the rate measured from the receiver's timestamps is bounded above
 * whatever the machine's speed (only the first POST's own latency shortens the measured span,
 * hence 100 deliveries: 19.8 s at 5/s). How close to 5/s a loaded machine gets, and that an
 * unthrottled neighbour keeps its pace, are rates: `npm run bench` measures them side by side.
 * Here: every delivery arrives once, none failed or dropped, none spent an attempt waiting.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createKey, untilDone, useLocalCloudEnv } from '../../support/api';
import { allHistory, createHooks, untilCount } from './helpers';
import { type Receiver, startReceiver } from './receiver';

const RATE = 5;
const NOTIFICATIONS = 100;

describe('throttle (maxDeliveriesPerSecond)', () => {
  let receiver: Receiver;

  beforeAll(async () => {
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver.close();
  });

  it('delays deliveries beyond the limit (never fails or drops them) and leaves an unthrottled webhook alone', async () => {
    const owner = await createKey('throttle-owner');
    const X = 'queryCreated';
    const hook = (name: string) => ({
      name,
      url: receiver.url(`/${name}`),
      global: false,
      notificationType: [X],
      actionType: 'triggered',
    });
    const [throttled, free] = await createHooks(owner.apiKey, [
      { ...hook('throttled'), maxDeliveriesPerSecond: RATE },
      hook('free'),
    ]);
    expect(
      (await call('GET', `/webhooks/${throttled}`, { key: owner.apiKey })).body.maxDeliveriesPerSecond,
    ).toBe(RATE);
    useLocalCloudEnv();
    const { publishNotifications } = await import('../../../shared/notifications/publisher');
    await publishNotifications(
      Array.from({ length: NOTIFICATIONS }, (_, i) => ({
        notificationType: X,
        text: `n${i}`,
        recipients: [owner.userId],
      })),
    );
    await untilCount(() => receiver.byPath('/free').length, NOTIFICATIONS, 'the unthrottled deliveries');
    await untilCount(() => receiver.byPath('/throttled').length, NOTIFICATIONS, 'the throttled deliveries');

    for (const path of ['/throttled', '/free']) {
      const posts = receiver.byPath(path);
      expect(posts).toHaveLength(NOTIFICATIONS);
      expect(new Set(posts.map((p) => p.headers['webhook-id'])).size).toBe(NOTIFICATIONS);
      expect(new Set(posts.map((p) => JSON.parse(p.body).text)).size).toBe(NOTIFICATIONS);
    }
    const times = receiver.byPath('/throttled').map((p) => p.at);
    const perSecond = (times.length - 1) / ((Math.max(...times) - Math.min(...times)) / 1000);
    expect(perSecond).toBeLessThanOrEqual(RATE * 1.1);

    // One record per delivery, each the first attempt, all delivered: waiting cost no attempt.
    const records = await untilDone(
      async () =>
        (await allHistory(owner.apiKey)).filter((r) => r.webhooksId === throttled || r.webhooksId === free),
      (list) => list.length >= 2 * NOTIFICATIONS,
      { progress: (list) => list.length, what: 'the history records' },
    );
    expect(records).toHaveLength(2 * NOTIFICATIONS);
    expect(records.every((r) => r.statusCode === 200 && r.attempt === 1)).toBe(true);
  });
});
