/**
 * Parked, held and resumed ordering keys (issue 41, ADR 0020) through the local cloud: a key whose
 * head runs out of the schedule (the test cloud's 1, 1, 2 s: four attempts) is parked with the
 * deliveries behind it, its owner hears of it, and the key's neighbours flow on; an operator lists
 * it, resumes it (the head's attempts go on, its schedule starts over) or skips its head; a key of
 * an ordered webhook that stays disabled is held in the store (ORDERED_HOLD_AFTER_SECONDS is 2 s
 * in the integration tier) and drained, in order, when the webhook is enabled again.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiResponse, call, createKey, untilDone, useLocalCloudEnv } from '../../support/api';
import { type AnyRecord, allHistory, createHooks, pipelineMarker, untilCount } from './helpers';
import { type Received, type Receiver, startReceiver } from './receiver';

let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
});

const TYPE = 'taskValidated';

async function publishAll(owner: number, inputs: { text: string; orderingKey: string }[]): Promise<void> {
  useLocalCloudEnv();
  const { publishNotifications } = await import('../../../shared/notifications/publisher');
  await publishNotifications(
    inputs.map((input) => ({ notificationType: TYPE, recipients: [owner], ...input })),
  );
}

const textOf = (r: Received): string => JSON.parse(r.body).text as string;

function hook(name: string, extra: Record<string, unknown> = {}) {
  return {
    name,
    url: receiver.url(`/${name}`),
    global: false,
    notificationType: [TYPE],
    actionType: 'receive',
    ordered: true,
    ...extra,
  };
}

/** The receiver answers 503 to texts `failing` says and 200 to the rest. */
function answer(name: string, failing: (text: string) => boolean): void {
  receiver.on(`/${name}`, (_req, body, res) => {
    const status = failing(JSON.parse(body).text as string) ? 503 : 200;
    res.writeHead(status).end();
    return status;
  });
}

const keyPath = (webhookId: number, key: string) =>
  `/webhooks/${webhookId}/ordering-keys/${encodeURIComponent(key)}`;

async function keysOf(apiKey: string, webhookId: number, query = ''): Promise<ApiResponse<AnyRecord>> {
  const listed = await call('GET', `/webhooks/${webhookId}/ordering-keys${query}`, { key: apiKey });
  expect(listed.status, listed.text).toBe(200);
  return listed;
}

/** Waits until the webhook's keys (in `query`'s state) are what `accept` wants. */
function untilKeys(
  apiKey: string,
  webhookId: number,
  query: string,
  accept: (keys: AnyRecord[]) => boolean,
  what: string,
) {
  return untilDone(async () => (await keysOf(apiKey, webhookId, query)).body.keys as AnyRecord[], accept, {
    what,
  });
}

const delivered = (name: string, part: string) =>
  receiver
    .byPath(`/${name}`)
    .filter((r) => r.status === 200 && textOf(r).includes(part))
    .map(textOf);

describe('parked ordering keys', () => {
  it('parks an exhausted key with everything behind it, tells the owner, and resumes it in order', async () => {
    const owner = await createKey('parking-resume');
    const run = randomUUID().slice(0, 8);
    const name = `parks-${run}`;
    const news = `parked-news-${run}`;
    const [webhookId = 0] = await createHooks(owner.apiKey, [
      hook(name),
      { ...hook(news), ordered: false, notificationType: ['webhookKeyParked'] },
    ]);
    // A `/` and a `%` in the key: the routes take it percent-encoded.
    const key = `tenant/a%:${run}`;
    answer(name, (text) => text.includes(':a-'));
    await publishAll(owner.userId, [
      { text: `${run}:a-0`, orderingKey: key },
      { text: `${run}:b-0`, orderingKey: `b:${run}` },
      { text: `${run}:b-1`, orderingKey: `b:${run}` },
    ]);
    const parked = (
      await untilKeys(owner.apiKey, webhookId, '?state=parked', (k) => k.length === 1, 'the key parked')
    )[0] as AnyRecord;
    expect(parked).toMatchObject({ key, state: 'parked', waiting: 1, lastError: 'HTTP 503' });
    expect(parked.headDeliveryId).toMatch(/^msg_[0-9a-f]{32}_\d+$/);
    // The key's later notifications wait behind its head; its neighbour flowed.
    await publishAll(owner.userId, [
      { text: `${run}:a-1`, orderingKey: key },
      { text: `${run}:a-2`, orderingKey: key },
    ]);
    await untilKeys(
      owner.apiKey,
      webhookId,
      '',
      (k) => k[0]?.waiting === 3,
      'the later notifications waiting',
    );
    expect(delivered(name, ':b-')).toEqual([`${run}:b-0`, `${run}:b-1`]);
    expect(delivered(name, ':a-')).toEqual([]);
    // The owner heard of it, and the webhook's health counts it.
    await untilCount(() => receiver.byPath(`/${news}`).length, 1, 'the webhookKeyParked notification');
    expect(JSON.parse(receiver.byPath(`/${news}`)[0]?.body ?? '{}').metadata).toMatchObject({
      notificationType: 'webhookKeyParked',
      webhookId,
      orderingKey: key,
      headDeliveryId: parked.headDeliveryId,
      attempts: 4,
      lastError: 'HTTP 503',
    });
    const shown = await call('GET', `/webhooks/${webhookId}`, { key: owner.apiKey });
    expect(shown.body.health.parkedKeys).toBe(1);
    // Ordering cannot be turned off while a key is parked.
    const off = await call('PATCH', `/webhooks/${webhookId}`, {
      key: owner.apiKey,
      body: { ordered: false },
    });
    expect(off.status, off.text).toBe(409);
    expect(off.body.message).toMatch(/^body\.ordered: /);
    // Resume: the head again (its first try after the resume still fails, so the drain is under
    // way while the key's next notifications arrive), then the rest, in order.
    let failAfterResume = 1;
    answer(name, (text) => text === `${run}:a-0` && failAfterResume-- > 0);
    const resumed = await call('POST', `${keyPath(webhookId, key)}/resume`, { key: owner.apiKey });
    expect(resumed.status, resumed.text).toBe(202);
    expect(resumed.body).toMatchObject({ key, state: 'draining', waiting: 3 });
    await publishAll(owner.userId, [
      { text: `${run}:a-3`, orderingKey: key },
      { text: `${run}:a-4`, orderingKey: key },
    ]);
    await untilKeys(owner.apiKey, webhookId, '', (k) => k.length === 0, 'the key drained');
    await untilDone(
      async () => delivered(name, ':a-').length,
      (n) => n >= 5,
      { what: 'every notification of the key' },
    );
    await pipelineMarker(receiver, owner);
    expect(delivered(name, ':a-')).toEqual([0, 1, 2, 3, 4].map((i) => `${run}:a-${i}`));
    // The head's attempt numbers went on: four failed, a fifth after the resume failed, the sixth
    // delivered; the rest once each.
    const records = (await allHistory(owner.apiKey)).filter((r) => r.name === name);
    const head = records.filter((r) => r.deliveryId === parked.headDeliveryId);
    expect(head.map((r) => [r.attempt, r.statusCode]).sort()).toEqual([
      [1, 503],
      [2, 503],
      [3, 503],
      [4, 503],
      [5, 503],
      [6, 200],
    ]);
    expect(records.filter((r) => r.deliveryId !== parked.headDeliveryId).every((r) => r.attempt === 1)).toBe(
      true,
    );
    // Nothing is parked now: a second resume is a 404, and ordering can be turned off.
    const again = await call('POST', `${keyPath(webhookId, key)}/resume`, { key: owner.apiKey });
    expect(again.status, again.text).toBe(404);
    const shownAfter = await call('GET', `/webhooks/${webhookId}`, { key: owner.apiKey });
    expect(shownAfter.body.health.parkedKeys).toBe(0);
    const offAfter = await call('PATCH', `/webhooks/${webhookId}`, {
      key: owner.apiKey,
      body: { ordered: false },
    });
    expect(offAfter.status, offAfter.text).toBe(200);
  });

  it('parks a resumed key again when its head still fails, and skips the head on request', async () => {
    const owner = await createKey('parking-skip');
    const run = randomUUID().slice(0, 8);
    const name = `skips-${run}`;
    const [webhookId = 0] = await createHooks(owner.apiKey, [hook(name)]);
    const key = `c:${run}`;
    answer(name, (text) => text === `${run}:c-0`);
    await publishAll(owner.userId, [{ text: `${run}:c-0`, orderingKey: key }]);
    const parked = (
      await untilKeys(owner.apiKey, webhookId, '?state=parked', (k) => k.length === 1, 'parked')
    )[0] as AnyRecord;
    await publishAll(owner.userId, [{ text: `${run}:c-1`, orderingKey: key }]);
    await untilKeys(owner.apiKey, webhookId, '', (k) => k[0]?.waiting === 2, 'c-1 waiting');
    // A resume whose head still fails: four more attempts on a fresh schedule, then parked again.
    const resumed = await call('POST', `${keyPath(webhookId, key)}/resume`, { key: owner.apiKey });
    expect(resumed.status, resumed.text).toBe(202);
    await untilDone(
      async () =>
        (await allHistory(owner.apiKey)).filter((r) => r.deliveryId === parked.headDeliveryId).length,
      (n) => n >= 8,
      { what: 'the resumed head failing its schedule again' },
    );
    const again = (
      await untilKeys(owner.apiKey, webhookId, '?state=parked', (k) => k.length === 1, 'parked again')
    )[0] as AnyRecord;
    expect(again).toMatchObject({ key, state: 'parked', waiting: 2, headDeliveryId: parked.headDeliveryId });
    // Skip: refused for another head (409), a bad key (400) and a key that is not parked (404).
    const wrongHead = await call('POST', `${keyPath(webhookId, key)}/skip`, {
      key: owner.apiKey,
      body: { headDeliveryId: `msg_${'0'.repeat(32)}_${webhookId}` },
    });
    expect(wrongHead.status, wrongHead.text).toBe(409);
    expect(wrongHead.body.message).toMatch(/^body\.headDeliveryId: /);
    const badKey = await call('POST', `${keyPath(webhookId, 'two words')}/skip`, { key: owner.apiKey });
    expect(badKey.status, badKey.text).toBe(400);
    expect(badKey.body.message).toMatch(/key/);
    const unknown = await call('POST', `${keyPath(webhookId, `none:${run}`)}/skip`, { key: owner.apiKey });
    expect(unknown.status, unknown.text).toBe(404);
    const skipped = await call('POST', `${keyPath(webhookId, key)}/skip`, {
      key: owner.apiKey,
      body: { headDeliveryId: parked.headDeliveryId },
    });
    expect(skipped.status, skipped.text).toBe(202);
    expect(skipped.body).toMatchObject({ key, state: 'draining', skippedDeliveryId: parked.headDeliveryId });
    await untilDone(
      async () => delivered(name, ':c-'),
      (texts) => texts.length >= 1,
      { what: 'the notification behind the skipped head' },
    );
    await untilKeys(owner.apiKey, webhookId, '', (k) => k.length === 0, 'the key flowing');
    await pipelineMarker(receiver, owner);
    expect(delivered(name, ':c-')).toEqual([`${run}:c-1`]);
    // The head: attempts 1 to 8 failed, then one record says it was skipped (never sent).
    const head = (await allHistory(owner.apiKey)).filter((r) => r.deliveryId === parked.headDeliveryId);
    expect(head.map((r) => r.attempt).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    const skipRecord = head.find((r) => r.attempt === 9);
    expect(skipRecord).toMatchObject({ statusCode: 0, keySkipped: true });
    expect(receiver.byPath(`/${name}`).filter((r) => textOf(r) === `${run}:c-0`)).toHaveLength(8);
    const skipAgain = await call('POST', `${keyPath(webhookId, key)}/skip`, { key: owner.apiKey });
    expect(skipAgain.status, skipAgain.text).toBe(404);
  });

  it('settles a resume and a skip sent at once: one wins, nothing is lost or sent twice, the order holds', async () => {
    const owner = await createKey('parking-race');
    const run = randomUUID().slice(0, 8);
    const name = `races-${run}`;
    const [webhookId = 0] = await createHooks(owner.apiKey, [hook(name)]);
    const key = `r:${run}`;
    let healthy = false;
    answer(name, (text) => !healthy && text === `${run}:r-0`);
    await publishAll(owner.userId, [{ text: `${run}:r-0`, orderingKey: key }]);
    const parked = (
      await untilKeys(owner.apiKey, webhookId, '?state=parked', (k) => k.length === 1, 'parked')
    )[0] as AnyRecord;
    await publishAll(owner.userId, [{ text: `${run}:r-1`, orderingKey: key }]);
    await untilKeys(owner.apiKey, webhookId, '', (k) => k[0]?.waiting === 2, 'r-1 waiting');
    healthy = true;
    const [resume, skip] = await Promise.all([
      call('POST', `${keyPath(webhookId, key)}/resume`, { key: owner.apiKey }),
      call('POST', `${keyPath(webhookId, key)}/skip`, { key: owner.apiKey }),
    ]);
    // The resume may come second and find the key draining already (it sends the drain again).
    expect(resume.status, resume.text).toBe(202);
    expect([202, 404, 409], skip.text).toContain(skip.status);
    await untilKeys(owner.apiKey, webhookId, '', (k) => k.length === 0, 'the key flowing');
    await untilDone(
      async () => delivered(name, ':r-1').length,
      (n) => n >= 1,
      { what: 'r-1 delivered' },
    );
    await pipelineMarker(receiver, owner);
    const head = (await allHistory(owner.apiKey)).filter((r) => r.deliveryId === parked.headDeliveryId);
    const ended = head.filter((r) => r.statusCode === 200 || r.keySkipped);
    // The head ended exactly once: delivered (the resume won) or skipped (the skip won), before r-1.
    expect(ended).toHaveLength(1);
    expect(Boolean(ended[0]?.keySkipped)).toBe(skip.status === 202);
    expect(delivered(name, ':r-')).toEqual(
      skip.status === 202 ? [`${run}:r-1`] : [`${run}:r-0`, `${run}:r-1`],
    );
  });

  it('holds the keys of an ordered webhook that stays disabled, and drains them in order when it is enabled', async () => {
    const owner = await createKey('parking-held');
    const run = randomUUID().slice(0, 8);
    const name = `holds-${run}`;
    const [webhookId = 0] = await createHooks(owner.apiKey, [hook(name)]);
    const key = `h:${run}`;
    const disabled = await call('POST', `/webhooks/${webhookId}/disable`, { key: owner.apiKey });
    expect(disabled.status, disabled.text).toBe(200);
    // Two deliveries of the key queued for the disabled webhook, as fan-out had queued them before
    // the pause (a disabled webhook gets no new ones): each comes due while it is disabled.
    useLocalCloudEnv();
    const { sendInOrder } = await import('../../../shared/store/queues');
    const { orderedDeliveryGroup } = await import('../../../shared/webhooks/pipeline/message');
    await sendInOrder(
      'deliveriesOrdered',
      [0, 1].map((i) => {
        const deliveryId = `msg_${randomUUID().replaceAll('-', '')}_${webhookId}`;
        return {
          body: JSON.stringify({
            v: 1,
            deliveryId,
            webhookId,
            activityId: i,
            notificationType: TYPE,
            text: `${run}:h-${i}`,
            metadata: { notificationType: TYPE },
            orderingKey: key,
          }),
          groupId: orderedDeliveryGroup(webhookId, key),
          deduplicationId: deliveryId,
        };
      }),
    );
    const held = (
      await untilKeys(
        owner.apiKey,
        webhookId,
        '?state=held',
        (k) => k[0]?.waiting === 2,
        'the key held with both notifications',
      )
    )[0] as AnyRecord;
    expect(held).toMatchObject({ key, state: 'held' });
    // Held is not parked: the health counts no parked key, and a skip is refused.
    const skip = await call('POST', `${keyPath(webhookId, key)}/skip`, { key: owner.apiKey });
    expect(skip.status, skip.text).toBe(404);
    expect(receiver.byPath(`/${name}`)).toEqual([]);
    const enabled = await call('POST', `/webhooks/${webhookId}/enable`, { key: owner.apiKey });
    expect(enabled.status, enabled.text).toBe(200);
    await untilDone(
      async () => delivered(name, ':h-').length,
      (n) => n >= 2,
      { what: 'the held key drained' },
    );
    await untilKeys(owner.apiKey, webhookId, '', (k) => k.length === 0, 'the key flowing');
    await pipelineMarker(receiver, owner);
    expect(delivered(name, ':h-')).toEqual([`${run}:h-0`, `${run}:h-1`]);
    // Nothing was recorded skipped while the webhook was disabled.
    const records = (await allHistory(owner.apiKey)).filter((r) => r.name === name);
    expect(records.some((r) => r.skipped)).toBe(false);
  });

  it('deleting an ordered webhook removes its stopped keys and their waiting deliveries from the store', async () => {
    const owner = await createKey('parking-deleted');
    const run = randomUUID().slice(0, 8);
    const [webhookId = 0] = await createHooks(owner.apiKey, [hook(`deleted-${run}`)]);
    useLocalCloudEnv();
    const { appendToKey, firstWaiting, keyState, listKeys } = await import(
      '../../../shared/webhooks/store/ordered-keys'
    );
    const { parkKeys, parkedHead } = await import('../../support/parked-keys');
    // A parked key with two deliveries waiting behind its head, and a held one: every stopped state.
    const keys = [`p:${run}`, `h:${run}`];
    await parkKeys(webhookId, [[1, keys[0] as string]], run);
    await parkKeys(webhookId, [[2, keys[1] as string]], run, 'held');
    for (const n of [3, 4]) {
      const state = await keyState(webhookId, keys[0] as string);
      expect(await appendToKey(state as never, parkedHead(webhookId, n, keys[0] as string, run))).toBe(true);
    }
    expect((await listKeys(webhookId, { pageSize: 10 })).keys).toHaveLength(2);
    const deleted = await call('DELETE', `/webhooks/${webhookId}`, { key: owner.apiKey });
    expect(deleted.status, deleted.text).toBe(200);
    // The drain message of each key finds the webhook gone and removes the key's items.
    const left = async () => {
      const states = (await listKeys(webhookId, { pageSize: 10 })).keys.length;
      const logs = await Promise.all(keys.map((key) => firstWaiting(webhookId, key)));
      return states + logs.filter((entry) => entry !== undefined).length;
    };
    await untilDone(left, (n) => n === 0, { what: 'the deleted webhook’s keys purged' });
  });
});
