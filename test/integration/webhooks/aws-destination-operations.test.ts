/**
 * What works for URL webhooks works for a webhook whose destination is an SQS queue of the
 * sandbox AWS account (issue 40, ADR 0019), through the local cloud with real SDK calls:
 * - a recover job re-sends its failed deliveries into the queue, under their webhook-ids;
 * - a throttle holds its sends to the rate, and every delivery arrives;
 * - a filter lets into the queue only what matches (the rest never leaves fan-out);
 * - a disabled webhook records a queued attempt as skipped and sends nothing;
 * - a `v1a` (Ed25519) signature on the message attributes verifies with @noble/ed25519 against
 *   the webhook's public key (`v1` is verified with `standardwebhooks` in
 *   ./aws-destination.test.ts);
 * - a role that refuses to be assumed at send time is a failed attempt with STS's code, retried;
 * - an admin's PATCH of another user's webhook to a destination is checked with the owner's
 *   ExternalId.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as ed from '@noble/ed25519';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { beforeAll, describe, expect, it } from 'vitest';
import { call, createKey, eventually, untilDone, useLocalCloudEnv } from '../../support/api';
import {
  type AnyRecord,
  allHistory,
  createHooks,
  deliveriesEnded,
  fannedOutTo,
  fanOutsEnded,
  publish,
  skippedWhileDisabled,
} from './helpers';
import {
  cli,
  externalIdOf,
  hook,
  queueDestination,
  received,
  recordsOf,
  SECRET,
  sandboxRole,
  TYPE,
  trailOf,
} from './sandbox';

const run = Math.random().toString(36).slice(2, 10);

describe('an SQS destination through recover, throttle, filters, pause, v1a and trust', () => {
  let owner: { userId: number; apiKey: string };
  let externalId: string;

  beforeAll(async () => {
    owner = await createKey(`aws-destination-operations-${run}`);
    externalId = await externalIdOf(owner.apiKey);
  });

  const historyOf = async (webhookId: number, query = '') =>
    allHistory(owner.apiKey, `&webhookId=${webhookId}${query}`);

  it('re-sends the failed deliveries of a recover window into the queue, under their webhook-ids', async () => {
    // The role may not send: every attempt fails with AccessDenied until the retries run out.
    const { queue, queueUrl, destination } = await queueDestination(externalId, 'ops', 'sqs:SendMessage');
    const [id] = await createHooks(owner.apiKey, [hook('ops recovered', { destination })]);
    const webhookId = id as number;
    const since = new Date().toISOString();
    for (const text of ['recover 1', 'recover 2'])
      await publish({ notificationType: TYPE, text, recipients: [owner.userId] });
    const first = await untilDone(
      () => historyOf(webhookId),
      (records) => new Set(records.map((r) => r.deliveryId)).size >= 2,
      { progress: (records) => records.length, what: 'the first attempts' },
    );
    const failed = [...new Set(first.map((r) => r.deliveryId as string))];
    expect(failed).toHaveLength(2);
    await deliveriesEnded(failed);
    const attempts = await historyOf(webhookId);
    expect(attempts.length).toBeGreaterThanOrEqual(4);
    for (const record of attempts) {
      expect(record).toMatchObject({
        statusCode: 403,
        url: queueUrl,
        response: { body: { code: 'AccessDenied' } },
      });
    }
    expect(trailOf('SendMessage', queueUrl).every((entry) => entry.errorCode === 'AccessDenied')).toBe(true);

    // The customer fixes it with a role that may send; the webhook is pointed at it.
    const allowed = { ...destination, roleArn: await sandboxRole(externalId, undefined, 'ops-role') };
    const patched = await call('PATCH', `/webhooks/${webhookId}`, {
      key: owner.apiKey,
      body: { destination: allowed },
    });
    expect(patched.status, patched.text).toBe(200);

    const dry = await call('POST', `/webhooks/${webhookId}/recover?dryRun=true`, {
      key: owner.apiKey,
      body: { since },
    });
    expect(dry.status, dry.text).toBe(200);
    expect(dry.body).toMatchObject({ dryRun: true, deliveries: 2, onlyFailed: true });
    const jobStart = new Date().toISOString();
    const started = await call('POST', `/webhooks/${webhookId}/recover`, {
      key: owner.apiKey,
      body: { since },
    });
    expect(started.status, started.text).toBe(202);
    const job = await untilDone(
      async () =>
        (await call('GET', `/webhooks/${webhookId}/recover/${started.body.jobId}`, { key: owner.apiKey }))
          .body,
      // `completed` once every re-send is queued; `resent` counts the records they made after.
      (j) => j.status === 'completed' && j.resent >= 2,
      { progress: (j) => [j.status, j.scanned, j.resent], what: 'the recover job' },
    );
    expect(job).toMatchObject({ deliveries: 2, alreadyDelivered: 0, enqueued: 2, resent: 2 });

    const messages = await received(queue, 2);
    expect(messages).toHaveLength(2);
    expect(messages.map((m) => m.attributes['webhook-id']).sort()).toEqual([...failed].sort());
    for (const message of messages) {
      const payload = new StandardWebhook(SECRET).verify(message.body, message.attributes);
      expect(payload).toMatchObject({ webhookId, webhookName: 'ops recovered' });
    }
    expect(messages.map((m) => JSON.parse(m.body).text).sort()).toEqual(['recover 1', 'recover 2']);

    // The re-sends' records: one per failed delivery, each a retry of it, delivered into the queue.
    const resent = await untilDone(
      () => historyOf(webhookId, `&since=${encodeURIComponent(jobStart)}`),
      (records) => records.length >= 2,
      { progress: (records) => records.length, what: 'the re-sends’ records' },
    );
    expect(resent).toHaveLength(2);
    expect(resent.map((r) => r.deliveryId).sort()).toEqual([...failed].sort());
    for (const record of resent) {
      expect(record).toMatchObject({ statusCode: 200, url: queueUrl, retryOf: expect.anything() });
      expect(record.response.body).toEqual({ messageId: expect.any(String) });
    }
    const sends = trailOf('SendMessage', queueUrl).filter((entry) => entry.errorCode === undefined);
    expect(sends).toHaveLength(2);
    for (const entry of sends) expect(entry.roleSessionName).toBe(`causeway-webhook-${webhookId}`);
  }, 300_000);

  it('holds a throttled destination to its rate, and every delivery arrives once, at its first attempt', async () => {
    const RATE = 5;
    const NOTIFICATIONS = 40;
    const { queue, queueUrl, destination } = await queueDestination(externalId, 'ops');
    const [id] = await createHooks(owner.apiKey, [
      { ...hook('ops throttled', { destination }), maxDeliveriesPerSecond: RATE },
    ]);
    useLocalCloudEnv();
    const { publishNotifications } = await import('../../../shared/notifications/publisher');
    await publishNotifications(
      Array.from({ length: NOTIFICATIONS }, (_, i) => ({
        notificationType: TYPE,
        text: `throttled ${i}`,
        recipients: [owner.userId],
      })),
    );
    // A hang guard only: 40 sends at 5/s take 8 s on a quiet machine.
    const messages = await received(queue, NOTIFICATIONS, 120_000);
    expect(messages).toHaveLength(NOTIFICATIONS);
    expect(new Set(messages.map((m) => m.attributes['webhook-id'])).size).toBe(NOTIFICATIONS);
    expect(new Set(messages.map((m) => JSON.parse(m.body).text)).size).toBe(NOTIFICATIONS);

    const times = trailOf('SendMessage', queueUrl).map((entry) => Date.parse(String(entry.eventTime)));
    expect(times).toHaveLength(NOTIFICATIONS);

    // One record per delivery, each the first attempt, all delivered: waiting cost no attempt.
    const records = await untilDone(
      () => historyOf(id as number),
      (list) => list.length >= NOTIFICATIONS,
      { progress: (list) => list.length, what: 'the history records' },
    );
    // The rate as the customer's account saw it: its trail's sends, from the first attempt's start
    // (its record's time less its duration: when its slot came) to the last send. Not from the
    // first send: that one waits for the webhook's first AssumeRole, which a loaded machine can
    // make a second late, and the sends whose slots came meanwhile follow it at once.
    const firstAttempt = Math.min(...records.map((r) => Date.parse(r.createdAt) - Number(r.durationMs ?? 0)));
    const perSecond = (times.length - 1) / ((Math.max(...times) - Math.min(firstAttempt, ...times)) / 1000);
    expect(perSecond).toBeLessThanOrEqual(RATE * 1.1);

    // Any record that is not a first attempt delivered shows here with what it was answered.
    expect(
      records
        .filter((r) => !(r.statusCode === 200 && r.attempt === 1 && r.url === queueUrl))
        .map((r) => ({
          deliveryId: r.deliveryId,
          attempt: r.attempt,
          statusCode: r.statusCode,
          response: r.response,
        })),
    ).toEqual([]);
    expect(records).toHaveLength(NOTIFICATIONS);
    expect(records.every((r) => r.statusCode === 200 && r.attempt === 1 && r.url === queueUrl)).toBe(true);
  }, 180_000);

  it('lets into the queue only the notifications its filter matches', async () => {
    const { queue, destination } = await queueDestination(externalId, 'ops');
    const [id] = await createHooks(owner.apiKey, [
      { ...hook('ops filtered', { destination }), filter: 'text.startsWith("keep")' },
    ]);
    const texts = ['keep 1', 'drop 1', 'keep 2', 'drop 2'];
    const published = [];
    for (const text of texts)
      published.push(await publish({ notificationType: TYPE, text, recipients: [owner.userId] }));
    // Fan-out's own log names the webhooks each notification went to: the filter is read there.
    const reached = await Promise.all(published.map((p) => fannedOutTo(p.messageId)));
    texts.forEach((text, i) => {
      if (text.startsWith('keep')) expect(reached[i], text).toContain(id);
      else expect(reached[i], text).not.toContain(id);
    });
    await fanOutsEnded(published.map((p) => p.messageId));

    // A marker the filter lets through, published after them: once it is in the queue, so is
    // everything queued before it, and nothing else is there.
    await publish({ notificationType: TYPE, text: 'keep marker', recipients: [owner.userId] });
    const messages: { body: string; attributes: Record<string, string> }[] = [];
    await eventually(
      async () => {
        messages.push(...(await cli('receive', '--queue', queue, '--wait', '1')));
        return messages.map((m) => JSON.parse(m.body).text as string);
      },
      (seen) => seen.includes('keep marker') && seen.length >= 3,
      60_000,
    );
    expect(messages.map((m) => JSON.parse(m.body).text).sort()).toEqual(['keep 1', 'keep 2', 'keep marker']);
    // The marker's record is written after its send: wait for it, not only for the queue.
    const records = await untilDone(
      () => historyOf(id as number),
      (list) => list.some((r: AnyRecord) => r.request.text === 'keep marker'),
      { what: 'the marker’s history record' },
    );
    expect(records.map((r: AnyRecord) => r.request.text).sort()).toEqual(['keep 1', 'keep 2', 'keep marker']);
  }, 120_000);

  it('records an attempt queued before a disable as skipped and sends nothing until enabled', async () => {
    const { queue, queueUrl, destination } = await queueDestination(externalId, 'ops');
    const [id] = await createHooks(owner.apiKey, [hook('ops paused', { destination })]);
    const webhookId = id as number;
    const disabled = await call('POST', `/webhooks/${webhookId}/disable`, {
      key: owner.apiKey,
      body: { reason: 'queue maintenance' },
    });
    expect(disabled.status, disabled.text).toBe(200);
    expect(disabled.body).toMatchObject({ status: 'disabled', destination });

    // A delivery fan-out had queued before the disable comes due now: recorded as skipped, never
    // sent; a notification published now skips the webhook.
    const skipped = await skippedWhileDisabled(owner, webhookId, TYPE, /queue maintenance/);
    expect(skipped?.url).toBe(queueUrl);

    // Enabled again: the next notification is the queue's first message, and its only one.
    const enabled = await call('POST', `/webhooks/${webhookId}/enable`, { key: owner.apiKey });
    expect(enabled.body).toMatchObject({ status: 'enabled' });
    await publish({ notificationType: TYPE, text: 'after', recipients: [owner.userId] });
    const messages = await received(queue, 1);
    expect(messages.map((m) => JSON.parse(m.body).text)).toEqual(['after']);
    expect(trailOf('SendMessage', queueUrl)).toHaveLength(1);
  });

  it('signs v1a on the message attributes: @noble/ed25519 verifies it with the webhook’s public key', async () => {
    const { queue, destination } = await queueDestination(externalId, 'ops');
    const { secret: _, ...v1a } = hook('ops v1a', { destination, signatureScheme: 'v1a' });
    const created = await call('POST', '/webhooks', { key: owner.apiKey, body: { webhooks: [v1a] } });
    expect(created.status, created.text).toBe(201);
    const webhook = created.body.createdWebhooks[0];
    expect(webhook).toMatchObject({ signatureScheme: 'v1a', destination });
    const publicKey = new Uint8Array(Buffer.from(String(webhook.publicKey).replace(/^whpk_/, ''), 'base64'));
    expect(publicKey).toHaveLength(32);

    await publish({ notificationType: TYPE, text: 'signed v1a', recipients: [owner.userId] });
    const [message] = await received(queue, 1);
    const body = message?.body as string;
    const attributes = message?.attributes as Record<string, string>;
    expect(JSON.parse(body)).toMatchObject({ text: 'signed v1a', webhookId: webhook.id });
    expect(Object.keys(attributes).sort()).toEqual(['webhook-id', 'webhook-signature', 'webhook-timestamp']);
    expect(attributes['webhook-signature']).toMatch(/^v1a,[A-Za-z0-9+/]{86}==$/);
    const signature = new Uint8Array(Buffer.from(String(attributes['webhook-signature']).slice(4), 'base64'));
    const content = (text = body, timestamp = attributes['webhook-timestamp']) =>
      new TextEncoder().encode(`${attributes['webhook-id']}.${timestamp}.${text}`);
    expect(await ed.verifyAsync(signature, content(), publicKey)).toBe(true);
    // Tampering: another body, another timestamp, another key.
    expect(await ed.verifyAsync(signature, content(`${body} `), publicKey)).toBe(false);
    const stale = String(Number(attributes['webhook-timestamp']) - 1);
    expect(await ed.verifyAsync(signature, content(body, stale), publicKey)).toBe(false);
    expect(await ed.verifyAsync(signature, content(), ed.utils.randomSecretKey().slice(0, 32))).toBe(false);

    const [record] = await recordsOf(owner.apiKey, webhook.id, 1);
    expect(record).toMatchObject({ statusCode: 200, deliveryId: attributes['webhook-id'] });
  });

  it('records a role refusing AssumeRole at send time as a failed attempt with STS’s code, and retries it', async () => {
    const { queueUrl, destination } = await queueDestination(externalId, 'ops');
    const [id] = await createHooks(owner.apiKey, [hook('ops refused at send', { destination })]);
    const webhookId = id as number;
    // The customer's account now has the destination's role trust someone else. In AWS a new
    // container assumes it afresh; this cloud's one process keeps the session its create check
    // made for the hour, so the stored destination is pointed (in the store) at such a role,
    // whose session no process holds.
    const refusing = await sandboxRole(`someone-else-${run}`, undefined, 'ops-role');
    useLocalCloudEnv();
    const { documentClient } = await import('../../../shared/store/clients');
    const { tableName } = await import('../../../shared/store/tables');
    await documentClient.send(
      new UpdateCommand({
        TableName: tableName('webhooks'),
        Key: { id: webhookId },
        UpdateExpression: 'SET #d.roleArn = :role',
        ExpressionAttributeNames: { '#d': 'destination' },
        ExpressionAttributeValues: { ':role': refusing },
      }),
    );

    await publish({ notificationType: TYPE, text: 'refused at send', recipients: [owner.userId] });
    const [first] = await recordsOf(owner.apiKey, webhookId, 1);
    await deliveriesEnded([first?.deliveryId as string]);
    const records = (await allHistory(owner.apiKey, `&webhookId=${webhookId}`)).sort(
      (a, b) => a.attempt - b.attempt,
    );
    expect(records.length).toBeGreaterThanOrEqual(2);
    expect(records.map((r) => r.attempt)).toEqual(records.map((_, i) => i + 1));
    for (const record of records) {
      expect(record).toMatchObject({
        statusCode: 403,
        url: queueUrl,
        response: { body: { code: 'AccessDenied' } },
      });
      expect(record.response.body.message).toMatch(
        new RegExp(
          `^AssumeRole refused: .*not authorized to perform: sts:AssumeRole on resource: ${refusing}`,
        ),
      );
    }
    // STS refused it (with the owner's ExternalId), and nothing was sent.
    const refusals = trailOf('AssumeRole', refusing);
    expect(refusals.length).toBeGreaterThanOrEqual(1);
    expect(refusals.every((entry) => entry.errorCode === 'AccessDenied')).toBe(true);
    expect(trailOf('SendMessage', queueUrl)).toEqual([]);
    expect((await call('GET', `/webhooks/${webhookId}`, { key: owner.apiKey })).body.status).toBe('enabled');
  }, 120_000);

  it('checks an admin’s PATCH of another user’s webhook to a destination with the owner’s ExternalId', async () => {
    const admin = await createKey(`aws-destination-operations-admin-${run}`, true);
    const adminExternalId = await externalIdOf(admin.apiKey);
    expect(adminExternalId).not.toBe(externalId);
    const url = 'https://example.com/ops-owned';
    const [id] = await createHooks(owner.apiKey, [hook('ops owned', { url })]);
    const before = (await call('GET', `/webhooks/${id}`, { key: owner.apiKey })).body;

    // A role trusting only the admin's ExternalId: refused, the webhook unchanged.
    const adminsRole = await queueDestination(adminExternalId, 'ops');
    const refused = await call('PATCH', `/webhooks/${id}`, {
      key: admin.apiKey,
      body: { destination: adminsRole.destination, name: 'not applied' },
    });
    expect(refused.status, refused.text).toBe(422);
    expect(refused.body.message).toMatch(/^body\.destination\.roleArn: AssumeRole refused \(AccessDenied/);
    expect(refused.body.trustPolicy.Statement[0].Condition.StringEquals['sts:ExternalId']).toBe(externalId);
    expect((await call('GET', `/webhooks/${id}`, { key: owner.apiKey })).body).toEqual(before);

    // A role trusting the owner's ExternalId: the admin's PATCH is accepted, and deliveries go there.
    const ownersRole = await queueDestination(externalId, 'ops');
    const patched = await call('PATCH', `/webhooks/${id}`, {
      key: admin.apiKey,
      body: { destination: ownersRole.destination },
    });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body.destination).toEqual(ownersRole.destination);
    expect(patched.body).not.toHaveProperty('url');

    await publish({ notificationType: TYPE, text: 'after the admin’s PATCH', recipients: [owner.userId] });
    const [message] = await received(ownersRole.queue, 1);
    expect(JSON.parse(message?.body as string)).toMatchObject({
      text: 'after the admin’s PATCH',
      webhookId: id,
    });
    const [record] = await untilDone(
      async () => (await allHistory(owner.apiKey, `&webhookId=${id}`)).filter((r) => r.statusCode === 200),
      (list) => list.length >= 1,
      { progress: (list) => list.length, what: 'the delivery’s record' },
    );
    expect(record).toMatchObject({ url: ownersRole.queueUrl, attempt: 1 });
  });
});
