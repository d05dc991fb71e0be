/**
 * Health and auto-disable on a local cloud of this file's own, whose auto-disable period is
 * seconds (WEBHOOK_AUTO_DISABLE_AFTER_SECONDS=6, at least 4 failed attempts): a receiver failing
 * continuously is warned about at half the period, then disabled, and the owner's webhook for the
 * operational notifications receives both. The shared suite cloud keeps the stage's period, so
 * other tests' failing receivers are never disabled under them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from '../../hardening/support';
import { untilDone } from '../../support/api';
import { type RunningCloud, startCloudProcess } from '../../support/local-cloud-process';
import { type Receiver, reply, startReceiver } from './receiver';

describe('health and auto-disable', () => {
  let cloud: RunningCloud;
  let receiver: Receiver;

  beforeAll(async () => {
    [cloud, receiver] = await Promise.all([
      startCloudProcess({
        env: { WEBHOOK_AUTO_DISABLE_AFTER_SECONDS: '6', WEBHOOK_AUTO_DISABLE_MIN_ATTEMPTS: '4' },
      }),
      startReceiver(),
    ]);
  });
  afterAll(async () => {
    await receiver?.close();
    await cloud?.stop();
  });

  const api = (method: string, path: string, body?: unknown) =>
    request(cloud.endpoints.gateway, method, path, { key: cloud.adminApiKey, ...(body ? { body } : {}) });

  it('warns at half the period, disables after it, and tells the owner both times; health shows the streak', async () => {
    receiver.on('/dying', reply(500, 'down'));
    const created = await api('POST', '/webhooks', {
      webhooks: [
        {
          name: 'dying',
          url: receiver.url('/dying'),
          global: true,
          notificationType: ['modelCommentCreated'],
          actionType: 'triggered',
        },
        {
          name: 'ops-news',
          url: receiver.url('/ops-news'),
          global: true,
          notificationType: ['webhookFailing', 'webhookAutoDisabled'],
          actionType: 'triggered',
        },
      ],
    });
    expect(created.status, created.text).toBe(201);
    const [dying] = created.body.createdWebhooks.map((w: { id: number }) => w.id);
    const { clientEnvironment } = await import('../../../infra/local/env');
    Object.assign(process.env, clientEnvironment(cloud.endpoints));
    const { publishNotification } = await import('../../../shared/notifications/publisher');
    // Keep notifications coming (each retried on the suite's 1,1,2 schedule) until it is disabled.
    const webhook = await untilDone(
      async () => {
        await publishNotification({ notificationType: 'modelCommentCreated', text: 'anyone there?' });
        await new Promise((r) => setTimeout(r, 500));
        return (await api('GET', `/webhooks/${dying}`)).body;
      },
      (w) => w.status === 'autoDisabled',
      { progress: () => receiver.byPath('/dying').length, what: 'the auto-disable' },
    );
    expect(webhook.disabledReason).toMatch(/every attempt failed since/);
    expect(webhook.failingSince).toEqual(expect.any(String));
    // The health figures come from counters the history stream keeps: wait for its records.
    const failing = (health: Record<string, unknown> | undefined) =>
      Number(health?.consecutiveFailures ?? 0) >= 4 && Number(health?.attempts24h ?? 0) >= 4;
    const counted = await untilDone(
      async () => (await api('GET', `/webhooks/${dying}`)).body,
      (w) => failing(w.health),
      { progress: (w) => w.health, what: 'the failed attempts in the health figures' },
    );
    expect(counted.health).toMatchObject({ successRate24h: 0, lastAttemptAt: expect.any(String) });
    expect(counted.health.lastSuccessAt).toBeUndefined();
    // The list shows the same figures for every webhook it holds.
    const listed = (await api('GET', '/webhooks')).body.find((w: { id: number }) => w.id === dying);
    expect(failing(listed.health), JSON.stringify(listed.health)).toBe(true);
    expect(listed.health).toMatchObject({ successRate24h: 0, lastAttemptAt: expect.any(String) });
    expect(listed.status).toBe('autoDisabled');

    const news = await untilDone(
      async () => receiver.byPath('/ops-news').map((r) => JSON.parse(r.body)),
      (list) => list.some((n) => n.metadata.notificationType === 'webhookAutoDisabled'),
      { progress: (list) => list.length, what: 'the operational notifications' },
    );
    const types = news.filter((n) => n.metadata.webhookId === dying).map((n) => n.metadata.notificationType);
    expect(types).toEqual(['webhookFailing', 'webhookAutoDisabled']);
    const warning = news.find((n) => n.metadata.notificationType === 'webhookFailing');
    expect(Date.parse(warning.metadata.disableAt) - Date.parse(warning.metadata.failingSince)).toBe(6000);

    // Enabling resets the streak; a success keeps it clear.
    receiver.on('/dying', reply(200));
    const enabled = await api('POST', `/webhooks/${dying}/enable`);
    expect(enabled.body.status).toBe('enabled');
    expect(enabled.body.failingSince).toBeUndefined();
    await publishNotification({ notificationType: 'modelCommentCreated', text: 'back' });
    // The stream consumer raises the newest success before it adds the batch to the hourly
    // counters the rate is read from; wait for both (under CI load a read fell between them).
    const healthy = await untilDone(
      async () => (await api('GET', `/webhooks/${dying}`)).body,
      (w) => w.health?.lastSuccessAt !== undefined && Number(w.health?.successRate24h) > 0,
      { progress: (w) => w.health, what: 'a success after enable, counted' },
    );
    expect(healthy.health.consecutiveFailures).toBe(0);
    expect(healthy.health.successRate24h).toBeGreaterThan(0);
    expect(healthy.failingSince).toBeUndefined();
    const paged = await api('GET', '/webhooks?pageSize=100');
    expect(paged.body.webhooks.find((w: { id: number }) => w.id === dying)?.health).toMatchObject({
      consecutiveFailures: 0,
      lastSuccessAt: expect.any(String),
    });
  }, 600_000);
});
