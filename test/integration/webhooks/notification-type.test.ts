/**
 * A producer cannot spoof the delivered type (issue 34, item 14): `metadata.notificationType` in
 * a message never overrides the message's `notificationType`, neither in what a receiver gets nor
 * in what a filter, or a filter preview, evaluates.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createKey, useLocalCloudEnv } from '../../support/api';
import { createHooks, fannedOutTo, publish, untilCount } from './helpers';
import { type Receiver, startReceiver } from './receiver';

const TYPE = 'modelAccessRequested';
const SPOOFED = 'userCreated';

describe('the delivered notification type', () => {
  let receiver: Receiver;

  beforeAll(async () => {
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver.close();
  });

  it("is the message's type, whatever its metadata says, for the receiver and for filters", async () => {
    const owner = await createKey('typed-owner');
    const hook = (name: string, filter?: string) => ({
      name,
      url: receiver.url(`/${name}`),
      global: false,
      notificationType: [TYPE],
      actionType: 'triggered',
      ...(filter !== undefined ? { filter } : {}),
    });
    const [plain, typed, spoofed] = (await createHooks(owner.apiKey, [
      hook('typed-plain'),
      hook('typed-filtered', `metadata.notificationType == "${TYPE}"`),
      hook('spoof-filtered', `metadata.notificationType == "${SPOOFED}"`),
    ])) as [number, number, number];
    const sent = await publish({
      notificationType: TYPE,
      text: 'a request with a spoofed type',
      metadata: { notificationType: SPOOFED, projectName: 'Finance' },
      recipients: [owner.userId],
    });
    const reached = await fannedOutTo(sent.messageId);
    expect(reached.sort()).toEqual([plain, typed].sort());
    expect(reached).not.toContain(spoofed);
    await untilCount(() => receiver.byPath('/typed-plain').length, 1, 'the plain delivery');
    await untilCount(() => receiver.byPath('/typed-filtered').length, 1, 'the filtered delivery');
    for (const path of ['/typed-plain', '/typed-filtered']) {
      const body = JSON.parse(receiver.byPath(path)[0]?.body ?? '{}');
      expect(body.metadata, path).toEqual({ notificationType: TYPE, projectName: 'Finance' });
    }
  });

  it("is the record's type in a filter preview, even where the stored payload holds another", async () => {
    const owner = await createKey('typed-preview');
    const [webhookId] = (await createHooks(owner.apiKey, [
      {
        name: 'typed-preview',
        url: receiver.url('/typed-preview'),
        global: false,
        notificationType: [TYPE],
        actionType: 'triggered',
      },
    ])) as [number];
    // A record as fan-out wrote it before the type was always set: the producer's value in it.
    useLocalCloudEnv();
    const { writeHistoryRecord } = await import('../../../shared/webhooks/store/history');
    await writeHistoryRecord({
      request: {
        text: 'stored',
        metadata: { notificationType: SPOOFED },
        webhookId,
        webhookName: 'typed-preview',
      },
      response: { body: 'ok' },
      statusCode: 200,
      durationMs: 2,
      notificationType: TYPE,
      webhooksActivityId: 7,
      webhooksId: webhookId,
      url: receiver.url('/typed-preview'),
      name: 'typed-preview',
      actionType: 'triggered',
      createdBy: owner.userId,
      deliveryId: `msg_${randomBytes(16).toString('hex')}_${webhookId}`,
      attempt: 1,
      global: false,
    });
    const preview = (filter: string) =>
      call('POST', '/webhooks/filters/preview', { key: owner.apiKey, body: { filter } });
    const spoof = await preview(`metadata.notificationType == "${SPOOFED}"`);
    expect(spoof.status, spoof.text).toBe(200);
    expect(spoof.body).toMatchObject({ evaluated: 1, matched: 0, notMatched: 1 });
    expect((await preview(`metadata.notificationType == "${TYPE}"`)).body).toMatchObject({
      evaluated: 1,
      matched: 1,
    });
  });
});
