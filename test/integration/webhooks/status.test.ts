/**
 * A webhook's status through the local cloud: disable stops deliveries (fan-out skips it; its
 * queued retry is recorded as skipped, not sent), enable resumes them; a 410 answer disables it
 * at once and the owner's webhook for `webhookAutoDisabled` hears of it; revoking a user's last
 * key disables their webhooks (issue 24, finding 2) and only an admin enables them again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminKey, call, createKey, revokeKeys, untilDone, useLocalCloudEnv } from '../../support/api';
import { createHooks, fannedOutTo, publish, skippedWhileDisabled, untilCount } from './helpers';
import { type Receiver, reply, startReceiver } from './receiver';

describe('webhook status', () => {
  let receiver: Receiver;
  const X = 'modelCommentCreated';

  beforeAll(async () => {
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver.close();
  });

  const hook = (name: string, types: string[] = [X], global = false) => ({
    name,
    url: receiver.url(`/${name}`),
    global,
    notificationType: types,
    actionType: 'triggered',
  });

  it('disable stops deliveries and records an attempt queued before it as skipped; enable resumes', async () => {
    const owner = await createKey('status-owner');
    const [id] = await createHooks(owner.apiKey, [hook('paused')]);
    const disabled = await call('POST', `/webhooks/${id}/disable`, {
      key: owner.apiKey,
      body: { reason: 'maintenance' },
    });
    expect(disabled.status, disabled.text).toBe(200);
    expect(disabled.body).toMatchObject({
      status: 'disabled',
      disabledReason: 'disabled by its owner: maintenance',
    });
    expect(disabled.body.disabledAt).toEqual(expect.any(String));

    // A delivery fan-out had queued before the disable comes due now: recorded as skipped, never
    // POSTed; a notification published now skips the webhook.
    await skippedWhileDisabled(owner, id as number, X, /maintenance/);
    // A disable of a disabled webhook changes nothing.
    const again = await call('POST', `/webhooks/${id}/disable`, { key: owner.apiKey });
    expect(again.body.disabledAt).toBe(disabled.body.disabledAt);

    const enabled = await call('POST', `/webhooks/${id}/enable`, { key: owner.apiKey });
    expect(enabled.body).toMatchObject({ status: 'enabled' });
    expect(enabled.body.disabledAt).toBeUndefined();
    const after = await publish({ notificationType: X, text: 'after', recipients: [owner.userId] });
    expect(await fannedOutTo(after.messageId)).toContain(id);
    await untilCount(() => receiver.byPath('/paused').length, 1, 'delivery after enable');
    expect(receiver.byPath('/paused').map((r) => JSON.parse(r.body).text)).toEqual(['after']);
  });

  it('a 410 answer disables the webhook at once, and its owner hears of it through the pipeline', async () => {
    const owner = await createKey('status-gone');
    receiver.on('/gone-for-good', reply(410));
    const [goneId, newsId] = await createHooks(owner.apiKey, [
      hook('gone-for-good'),
      hook('ops-news', ['webhookAutoDisabled']),
    ]);
    await publish({ notificationType: X, text: 'to a dead endpoint', recipients: [owner.userId] });
    const gone = await untilDone(
      async () => (await call('GET', `/webhooks/${goneId}`, { key: owner.apiKey })).body,
      (w) => w.status === 'autoDisabled',
      { progress: (w) => w.status, what: 'the 410 disabling the webhook' },
    );
    expect(gone.disabledReason).toMatch(/410 Gone/);
    await untilCount(() => receiver.byPath('/ops-news').length, 1, 'the webhookAutoDisabled notification');
    const news = JSON.parse(receiver.byPath('/ops-news')[0]?.body ?? '{}');
    expect(news).toMatchObject({
      webhookId: newsId,
      metadata: { notificationType: 'webhookAutoDisabled', webhookId: goneId, targetUser: owner.userId },
    });
    expect(news.text).toMatch(/410 Gone/);
    expect(receiver.byPath('/gone-for-good')).toHaveLength(1);
  });

  it('revoking a user’s last key disables (not deletes) their webhooks and a revoked admin’s global one; only an admin enables them', async () => {
    const user = await createKey('status-revoked-user');
    const admin = await createKey('status-revoked-admin', true);
    const [personal] = await createHooks(user.apiKey, [hook('revoked-personal')]);
    const [global] = await createHooks(admin.apiKey, [hook('revoked-global', ['ALL_NOTIFICATIONS'], true)]);
    const revoked = await revokeKeys(user.userId);
    expect(revoked.disabledWebhooks).toEqual([personal]);
    expect((await revokeKeys(admin.userId)).disabledWebhooks).toEqual([global]);
    for (const id of [personal, global]) {
      const seen = await call('GET', `/webhooks/${id}`, { key: adminKey() });
      expect(seen.status).toBe(200);
      expect(seen.body).toMatchObject({
        status: 'disabled',
        disabledReason: expect.stringMatching(/keys were revoked/),
      });
    }
    const published = await publish({
      notificationType: X,
      text: 'after revocation',
      recipients: [user.userId],
    });
    const to = await fannedOutTo(published.messageId);
    expect(to).not.toContain(personal);
    expect(to).not.toContain(global);
    // The owner cannot take it back (were they given a key again)…
    useLocalCloudEnv();
    const { enableWebhook } = await import('../../../shared/webhooks/api/status');
    await expect(
      enableWebhook(
        { userId: user.userId, name: 'status-revoked-user', permissions: [] },
        personal as number,
        'http://127.0.0.1',
      ),
    ).rejects.toThrow(/only an APPLICATION_ADMIN may enable it/);
    // …an admin can, and it receives again.
    const enabled = await call('POST', `/webhooks/${personal}/enable`, { key: adminKey() });
    expect(enabled.body).toMatchObject({ status: 'enabled' });
    const again = await publish({
      notificationType: X,
      text: 'enabled by an admin',
      recipients: [user.userId],
    });
    expect(await fannedOutTo(again.messageId)).toContain(personal);
    await untilCount(
      () => receiver.byPath('/revoked-personal').length,
      1,
      'delivery after the admin enabled it',
    );
  });
});
