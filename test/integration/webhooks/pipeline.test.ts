import { randomBytes, randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { afterAll, describe, expect, it } from 'vitest';
import { adminKey, call, createKey, eventually } from '../../support/api';
import { createHooks, fanOutsEnded, onOwnCloud, pipelineMarker, publish } from './helpers';

// A cloud of its own: its global webhooks (one on ALL_NOTIFICATIONS) would receive every other
// file's notifications on the tier's shared cloud, and those files count their deliveries.
const own = onOwnCloud();

describe('fan-out: a notification reaches exactly the right webhooks', () => {
  const whsec = `whsec_${randomBytes(32).toString('base64')}`;
  const rawSecret = 'a raw shared secret';
  let u1: { userId: number; apiKey: string };
  let u2: { userId: number; apiKey: string };
  const ids: number[] = [];

  afterAll(async () => {
    for (const id of ids) await call('DELETE', `/webhooks/${id}`);
  });

  it('routes by type, ALL_NOTIFICATIONS, global vs personal and recipients, signed', async () => {
    u1 = await createKey('fanout-u1');
    u2 = await createKey('fanout-u2');
    const T = 'modelAccessRequested';
    const base = { actionType: 'triggered', url: '' };
    ids.push(
      ...(await createHooks(adminKey(), [
        {
          ...base,
          name: 'g-type',
          url: own.receiver.url('/g-type'),
          global: true,
          notificationType: [T],
          secret: rawSecret,
        },
        {
          ...base,
          name: 'g-all',
          url: own.receiver.url('/g-all'),
          global: true,
          notificationType: ['ALL_NOTIFICATIONS'],
        },
        {
          ...base,
          name: 'g-other',
          url: own.receiver.url('/g-other'),
          global: true,
          notificationType: ['userCreated'],
        },
      ])),
      ...(await createHooks(u1.apiKey, [
        {
          ...base,
          name: 'p1-type',
          url: own.receiver.url('/p1-type'),
          global: false,
          notificationType: [T],
          secret: whsec,
        },
        {
          ...base,
          name: 'p1-other',
          url: own.receiver.url('/p1-other'),
          global: false,
          notificationType: ['modelCommentCreated'],
        },
      ])),
      ...(await createHooks(u2.apiKey, [
        {
          ...base,
          name: 'p2-type',
          url: own.receiver.url('/p2-type'),
          global: false,
          notificationType: [T, T],
        },
      ])),
    );
    const token = randomUUID();
    const dupId = `dup-${token}`;
    const cases: { text: string; input: Parameters<typeof publish>[0]; expected: string[] }[] = [
      {
        text: `${token} n1`,
        input: { notificationType: T, text: '', recipients: [u1.userId] },
        expected: ['/g-type', '/g-all', '/p1-type'],
      },
      {
        text: `${token} n2`,
        input: { notificationType: T, text: '', metadata: { targetUser: u2.userId } },
        expected: ['/g-type', '/g-all', '/p2-type'],
      },
      {
        text: `${token} n3`,
        input: { notificationType: T, text: '', metadata: { actionBy: u1.userId } },
        expected: ['/g-type', '/g-all'],
      },
      {
        text: `${token} n4`,
        input: { notificationType: T, text: '', metadata: { actionBy: u2.userId, notifyInitiator: true } },
        expected: ['/g-type', '/g-all', '/p2-type'],
      },
      {
        text: `${token} n5`,
        input: { notificationType: 'modelCommentCreated', text: '', recipients: [u1.userId, u2.userId] },
        expected: ['/g-all', '/p1-other'],
      },
      // Published twice with one producer id: one notification, one delivery per webhook.
      {
        text: `${token} n6`,
        input: { notificationType: T, text: '', recipients: [u1.userId], id: dupId },
        expected: ['/g-type', '/g-all', '/p1-type'],
      },
    ];
    const published: string[] = [];
    for (const c of cases) published.push((await publish({ ...c.input, text: c.text })).messageId);
    const again = await publish({
      ...(cases[5]?.input ?? { notificationType: T, text: '' }),
      text: `${token} n6`,
    });
    published.push(again.messageId);
    const expectedTotal = cases.reduce((n, c) => n + c.expected.length, 0);
    const mine = () => own.receiver.received.filter((r) => r.body.includes(token));
    await eventually(
      async () => mine(),
      (list) => list.length >= expectedTotal,
      20_000,
    );
    // Every notification is through fan-out, so any delivery it made is queued; a marker sent
    // through the pipeline after that has arrived: a wrong or duplicate delivery came before it.
    await fanOutsEnded(published);
    await pipelineMarker(own.receiver, u1);
    for (const c of cases) {
      const paths = mine()
        .filter((r) => JSON.parse(r.body).text === c.text)
        .map((r) => r.path)
        .sort();
      expect(paths, c.text).toEqual([...c.expected].sort());
    }

    // Signatures: the standardwebhooks verifier accepts what we send.
    const p1 = mine().find((r) => r.path === '/p1-type');
    const g = mine().find((r) => r.path === '/g-type');
    const unsigned = mine().find((r) => r.path === '/g-all');
    if (!p1 || !g || !unsigned) throw new Error('missing deliveries');
    expect(new Webhook(whsec).verify(p1.body, p1.headers)).toMatchObject({ webhookName: 'p1-type' });
    expect(new Webhook(Buffer.from(rawSecret), { format: 'raw' }).verify(g.body, g.headers)).toBeTruthy();
    expect(() => new Webhook(whsec).verify(`${p1.body} `, p1.headers)).toThrow();
    expect(unsigned.headers['webhook-signature']).toBeUndefined();
    expect(unsigned.headers['webhook-id']).toMatch(/^msg_[0-9a-f]{32}_\d+$/);
    const payload = JSON.parse(p1.body);
    expect(Object.keys(payload).sort()).toEqual(['metadata', 'text', 'webhookId', 'webhookName']);
    expect(payload.metadata.notificationType).toBe(T);
  });
});
