/**
 * Ordered delivery per key (issue 41, ADR 0020) through the local cloud: an ordered webhook gets
 * the notifications of one key one at a time, in the order they were published, even from a
 * receiver that answers the early ones slowest; a failing head holds only its own key; an
 * unordered webhook of the same notifications is unaffected.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, untilDone, useLocalCloudEnv } from '../../support/api';
import { allHistory, createHooks, pipelineMarker } from './helpers';
import { type Received, type Receiver, startReceiver } from './receiver';

let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
});

const TYPE = 'taskValidated';

async function publishAll(
  inputs: { text: string; orderingKey?: string; recipients: number[] }[],
): Promise<void> {
  useLocalCloudEnv();
  const { publishNotifications } = await import('../../../shared/notifications/publisher');
  await publishNotifications(inputs.map((input) => ({ notificationType: TYPE, ...input })));
}

const textOf = (r: Received): string => JSON.parse(r.body).text as string;

function hook(name: string, ordered: boolean) {
  return {
    name,
    url: receiver.url(`/${name}`),
    global: false,
    notificationType: [TYPE],
    actionType: 'receive',
    ...(ordered ? { ordered: true } : {}),
  };
}

describe('ordered delivery per key', () => {
  it("keeps each key's order from a receiver that answers the early ones slowest; keys go side by side", async () => {
    const owner = await createKey('ordered-delivery-order');
    const run = randomUUID().slice(0, 8);
    const ordered = `ordered-${run}`;
    const unordered = `unordered-${run}`;
    await createHooks(owner.apiKey, [hook(ordered, true), hook(unordered, false)]);
    const KEYS = 4;
    const PER_KEY = 6;
    // The early notifications of each key answer slowest: an unordered path would let later
    // ones overtake them.
    const answeredAt = new Map<string, number>();
    receiver.on(`/${ordered}`, (_req, body, res) => {
      const text = JSON.parse(body).text as string;
      const i = Number(text.split('-')[1]);
      setTimeout(
        () => {
          answeredAt.set(text, Date.now());
          res.writeHead(200).end();
        },
        (PER_KEY - i) * 40,
      );
      return 200;
    });
    const inputs = Array.from({ length: PER_KEY }, (_, i) =>
      Array.from({ length: KEYS }, (_, k) => ({
        text: `${run}:k${k}-${i}`,
        orderingKey: `entity:${run}:${k}`,
        recipients: [owner.userId],
      })),
    ).flat();
    await publishAll(inputs);
    await untilDone(
      async () => receiver.byPath(`/${ordered}`).length + receiver.byPath(`/${unordered}`).length,
      (n) => n >= 2 * inputs.length,
      { what: 'every delivery to both webhooks' },
    );
    await pipelineMarker(receiver, owner);
    const arrived = receiver.byPath(`/${ordered}`).map(textOf);
    expect(arrived).toHaveLength(inputs.length);
    for (let k = 0; k < KEYS; k++) {
      const key = arrived.filter((t) => t.includes(`:k${k}-`));
      expect(key, `key ${k}`).toEqual(Array.from({ length: PER_KEY }, (_, i) => `${run}:k${k}-${i}`));
    }
    // One at a time: each POST of a key came after the answer to the one before it.
    const posts = receiver.byPath(`/${ordered}`);
    for (let k = 0; k < KEYS; k++)
      for (let i = 1; i < PER_KEY; i++) {
        const post = posts.find((p) => textOf(p) === `${run}:k${k}-${i}`);
        expect(post?.at, `k${k}-${i}`).toBeGreaterThanOrEqual(
          answeredAt.get(`${run}:k${k}-${i - 1}`) ?? Infinity,
        );
      }
    // Side by side: the heads of some two keys were in flight at the same time.
    const heads = Array.from({ length: KEYS }, (_, k) => {
      const text = `${run}:k${k}-0`;
      return { from: posts.find((p) => textOf(p) === text)?.at ?? 0, to: answeredAt.get(text) ?? 0 };
    });
    expect(heads.some((a, k) => heads.some((b, j) => j !== k && a.from < b.to && b.from < a.to))).toBe(true);
    // The unordered webhook got every one too (in whatever order).
    expect(new Set(receiver.byPath(`/${unordered}`).map(textOf))).toEqual(new Set(inputs.map((i) => i.text)));
    // Each delivery made one attempt, recorded once.
    const records = await allHistory(owner.apiKey);
    const orderedRecords = records.filter((r) => r.name === ordered);
    expect(orderedRecords).toHaveLength(inputs.length);
    expect(orderedRecords.every((r) => r.attempt === 1 && r.statusCode === 200)).toBe(true);
  });

  it('a failing head holds only its key: the key goes on in order after it, other keys meanwhile', async () => {
    const owner = await createKey('ordered-delivery-hold');
    const run = randomUUID().slice(0, 8);
    const name = `held-${run}`;
    await createHooks(owner.apiKey, [hook(name, true)]);
    const failing = `${run}:x-0`;
    let failures = 0;
    // The test cloud retries after 1, 1 and 2 s: the head fails three times, the fourth succeeds.
    receiver.on(`/${name}`, (_req, body, res) => {
      const status = JSON.parse(body).text === failing && failures++ < 3 ? 500 : 200;
      res.writeHead(status).end();
      return status;
    });
    await publishAll([
      ...[0, 1, 2].map((i) => ({
        text: `${run}:x-${i}`,
        orderingKey: `x:${run}`,
        recipients: [owner.userId],
      })),
      ...[0, 1, 2].map((i) => ({
        text: `${run}:y-${i}`,
        orderingKey: `y:${run}`,
        recipients: [owner.userId],
      })),
    ]);
    await untilDone(
      async () => receiver.byPath(`/${name}`).filter((r) => r.status === 200).length,
      (n) => n >= 6,
      { what: 'every notification of both keys delivered' },
    );
    await pipelineMarker(receiver, owner);
    const posts = receiver.byPath(`/${name}`);
    const x = posts.filter((r) => textOf(r).includes(':x-'));
    expect(x.map((r) => [textOf(r), r.status])).toEqual([
      [failing, 500],
      [failing, 500],
      [failing, 500],
      [failing, 200],
      [`${run}:x-1`, 200],
      [`${run}:x-2`, 200],
    ]);
    const y = posts.filter((r) => textOf(r).includes(':y-'));
    expect(y.map(textOf)).toEqual([0, 1, 2].map((i) => `${run}:y-${i}`));
    // Key y was not held by key x's failing head: its first delivery came before x's head succeeded.
    const headDelivered = x[3]?.at ?? 0;
    expect(y[0]?.at ?? Number.POSITIVE_INFINITY).toBeLessThan(headDelivered);
    // The head's attempts are counted from the history: 1 to 4, each recorded once.
    const records = (await allHistory(owner.apiKey)).filter(
      (r) => r.name === name && JSON.stringify(r.request).includes(failing),
    );
    expect(records.map((r) => r.attempt).sort()).toEqual([1, 2, 3, 4]);
  });

  it('a throttled ordered webhook keeps each key in order and under its limit, every delivery on its first attempt', async () => {
    const owner = await createKey('ordered-delivery-throttle');
    const run = randomUUID().slice(0, 8);
    const name = `throttled-${run}`;
    const RATE = 4;
    await createHooks(owner.apiKey, [{ ...hook(name, true), maxDeliveriesPerSecond: RATE }]);
    const inputs = Array.from({ length: 6 }, (_, i) =>
      ['a', 'b'].map((k) => ({
        text: `${run}:${k}-${i}`,
        orderingKey: `${k}:${run}`,
        recipients: [owner.userId],
      })),
    ).flat();
    await publishAll(inputs);
    await untilDone(
      async () => receiver.byPath(`/${name}`).length,
      (n) => n >= inputs.length,
      { what: 'every throttled ordered delivery' },
    );
    await pipelineMarker(receiver, owner);
    const posts = receiver.byPath(`/${name}`);
    expect(posts).toHaveLength(inputs.length);
    for (const k of ['a', 'b'])
      expect(posts.map(textOf).filter((t) => t.includes(`:${k}-`))).toEqual(
        Array.from({ length: 6 }, (_, i) => `${run}:${k}-${i}`),
      );
    const times = posts.map((p) => p.at);
    const perSecond = (times.length - 1) / ((Math.max(...times) - Math.min(...times)) / 1000);
    expect(perSecond).toBeLessThanOrEqual(RATE * 1.1);
    // A head waiting for its slot is no failed attempt.
    const records = (await allHistory(owner.apiKey)).filter((r) => r.name === name);
    expect(records).toHaveLength(inputs.length);
    expect(records.every((r) => r.attempt === 1 && r.statusCode === 200)).toBe(true);
  });
});
