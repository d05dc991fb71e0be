import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { parseTraceparent } from '../../../shared/observability/trace';
import { call, createKey, eventually } from '../../support/api';
import { createHooks, deliveriesEnded, historyFor, pipelineMarker, publish } from './helpers';
import { type Receiver, reply, startReceiver } from './receiver';

// The suite's cloud runs with WEBHOOK_TIMEOUT_MS=1500 and WEBHOOK_RETRY_SCHEDULE=1,1,2.
const TIMEOUT_MS = 1500;

describe('delivery behaviour through the local cloud', () => {
  let receiver: Receiver;
  let owner: { userId: number; apiKey: string };
  const type = 'modelAccessApproved';
  const hook = (name: string) => ({
    name,
    url: receiver.url(`/${name}`),
    global: false,
    notificationType: [type],
    actionType: 'triggered',
  });

  beforeAll(async () => {
    receiver = await startReceiver();
    owner = await createKey('delivery-owner');
  });
  afterAll(async () => {
    await receiver.close();
  });

  it('times a hanging receiver out as 500 ESOCKETTIMEDOUT while a fast one in the same batch is delivered at once', async () => {
    receiver.on('/hang', () => 0); // never answers
    const [hangId, fastId] = await createHooks(owner.apiKey, [hook('hang'), hook('fast')]);
    const published = Date.now();
    await publish({ notificationType: type, text: 'race', recipients: [owner.userId] });
    const fast = await eventually(
      async () => receiver.byPath('/fast'),
      (list) => list.length > 0,
    );
    const [first] = await historyFor(owner.apiKey, hangId as number, 1);
    expect(first).toMatchObject({
      statusCode: 500,
      response: { body: { code: 'ESOCKETTIMEDOUT', connect: false } },
      attempt: 1,
      webhooksId: hangId,
      name: 'hang',
      notificationType: type,
      request: { text: 'race', webhookId: hangId, webhookName: 'hang' },
    });
    const fastAt = fast[0]?.at ?? Number.POSITIVE_INFINITY;
    const hangRecordedAt = Date.parse(first?.createdAt);
    // The fast receiver did not wait for the hanging one.
    expect(hangRecordedAt - fastAt).toBeGreaterThan(TIMEOUT_MS - 700);
    expect(fastAt - published).toBeLessThan(10_000);
    const [fastRecord] = await historyFor(owner.apiKey, fastId as number, 1);
    expect(fastRecord).toMatchObject({ statusCode: 200, attempt: 1 });
    await call('DELETE', `/webhooks/${hangId}`, { key: owner.apiKey });
  });

  it('sends a W3C traceparent (one trace per notification, a span per request) and logs EMF delivery metrics', async () => {
    const ids = await createHooks(owner.apiKey, [hook('trace-a'), hook('trace-b')]);
    await publish({ notificationType: type, text: 'traced', recipients: [owner.userId] });
    const received = await eventually(
      async () => [...receiver.byPath('/trace-a'), ...receiver.byPath('/trace-b')],
      (list) => list.length >= 2,
    );
    const [a, b] = received.map((r) => parseTraceparent(r.headers.traceparent));
    expect(a?.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(b?.traceId).toBe(a?.traceId);
    expect(b?.parentId).not.toBe(a?.parentId);
    // Locally the metrics are EMF lines in the cloud's output, as CloudWatch Logs would read them.
    const emf = await eventually(
      async () =>
        (await readFile(inject('logFile'), 'utf8'))
          .split('\n')
          .filter((line) => line.includes('"_aws"') && line.includes('"DeliveryAttempts"'))
          .map((line) => JSON.parse(line.slice(line.indexOf('{'))) as Record<string, unknown>),
      (lines) => lines.some((l) => l.outcome === 'delivered'),
    );
    const delivered = emf.find((l) => l.outcome === 'delivered');
    expect(delivered).toMatchObject({ service: 'causeway', stage: 'local' });
    // An invocation's attempts of one outcome share a document: a value (a sample) per attempt.
    const attempts = [delivered?.DeliveryAttempts].flat();
    expect(attempts.length).toBeGreaterThan(0);
    expect(attempts).toEqual(attempts.map(() => 1));
    expect([delivered?.DeliveryFailures].flat()).toEqual(attempts.map(() => 0));
    for (const id of ids) await call('DELETE', `/webhooks/${id}`, { key: owner.apiKey });
  });

  it('retries 500 then 200 to success with a stable webhook-id, and records both attempts', async () => {
    let calls = 0;
    receiver.on('/flaky', (req, body, res) =>
      (++calls === 1 ? reply(500, 'boom') : reply(200))(req, body, res),
    );
    const [id] = await createHooks(owner.apiKey, [hook('flaky')]);
    await publish({ notificationType: type, text: 'retry me', recipients: [owner.userId] });
    const records = await historyFor(owner.apiKey, id as number, 2);
    const sorted = [...records].sort((a, b) => a.attempt - b.attempt);
    expect(sorted.map((r) => [r.attempt, r.statusCode])).toEqual([
      [1, 500],
      [2, 200],
    ]);
    expect(sorted[0]?.response).toEqual({ body: 'boom' });
    const posts = receiver.byPath('/flaky');
    expect(posts).toHaveLength(2);
    expect(posts[0]?.headers['webhook-id']).toBe(posts[1]?.headers['webhook-id']);
    expect(sorted[0]?.deliveryId).toBe(posts[0]?.headers['webhook-id']);
  });

  it('stops at 410 Gone', async () => {
    receiver.on('/gone', reply(410));
    const [id] = await createHooks(owner.apiKey, [hook('gone')]);
    await publish({ notificationType: type, text: 'gone', recipients: [owner.userId] });
    await historyFor(owner.apiKey, id as number, 1);
    // The attempt's logged next step schedules nothing, and a marker sent through the pipeline
    // after it has arrived: a retry or a duplicate would have come before it.
    await deliveriesEnded([String(receiver.byPath('/gone')[0]?.headers['webhook-id'])]);
    await pipelineMarker(receiver, owner);
    expect(receiver.byPath('/gone')).toHaveLength(1);
    expect(await historyFor(owner.apiKey, id as number, 1)).toHaveLength(1);
  });

  it('does not follow a redirect and caps a huge response body', async () => {
    receiver.on('/moved', reply(302, '', { location: receiver.url('/target') }));
    receiver.on('/huge', (_req, _body, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const chunk = Buffer.alloc(1024 * 1024, 'x');
      let sent = 0;
      const pump = () => {
        while (sent < 200 && !res.destroyed) {
          sent++;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      pump();
      return 200;
    });
    const [movedId, hugeId] = await createHooks(owner.apiKey, [hook('moved'), hook('huge')]);
    await publish({ notificationType: type, text: 'edge', recipients: [owner.userId] });
    const [moved] = await historyFor(owner.apiKey, movedId as number, 1);
    expect(moved).toMatchObject({ statusCode: 302, attempt: 1 });
    expect(receiver.byPath('/target')).toHaveLength(0);
    const [huge] = await historyFor(owner.apiKey, hugeId as number, 1);
    expect(huge?.statusCode).toBe(200);
    expect(huge?.response.truncated).toBe(true);
    expect(huge?.response.body).toHaveLength(16 * 1024);
    await call('DELETE', `/webhooks/${movedId}`, { key: owner.apiKey });
  });

  it('re-sends a history record on request, records it, and hides it from other users', async () => {
    receiver.on('/manual', reply(200, '{"again":true}', { 'content-type': 'application/json' }));
    const [id] = await createHooks(owner.apiKey, [hook('manual')]);
    await publish({ notificationType: type, text: 'manual', recipients: [owner.userId] });
    const [original] = await historyFor(owner.apiKey, id as number, 1);
    const stranger = await createKey('delivery-stranger');
    expect(
      (await call('POST', `/webhooks/history/retry/${original?.id}`, { key: stranger.apiKey })).status,
    ).toBe(404);
    const retried = await call('POST', `/webhooks/history/retry/${original?.id}`, { key: owner.apiKey });
    expect(retried.status).toBe(201);
    expect(retried.body).toMatchObject({
      statusCode: 200,
      retryOf: original?.id,
      deliveryId: original?.deliveryId,
      request: original?.request,
      response: { body: { again: true } },
      webhooksId: id,
      createdBy: owner.userId,
    });
    expect(retried.body.id).not.toBe(original?.id);
    const posts = receiver.byPath('/manual');
    expect(posts).toHaveLength(2);
    expect(posts[1]?.headers['webhook-id']).toBe(original?.deliveryId);
    expect(await historyFor(owner.apiKey, id as number, 2)).toHaveLength(2);
    expect((await call('POST', '/webhooks/history/retry/12345', { key: owner.apiKey })).status).toBe(404);
  });
});
