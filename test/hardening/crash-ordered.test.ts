/**
 * A crash in the middle of ordered delivery (issue 41 item 5, ADR 0020): a local cloud of this
 * file's own is SIGKILLed while an ordered webhook's deliveries of many keys are being POSTed to
 * a slow receiver, then started again on the same state directory.
 *
 * Afterwards every notification was received, and for every key the notifications were received
 * in the order they were published: a crash may POST the same `webhook-id` again, but only right
 * after its earlier receipt, never after a later notification of its key. The history has one
 * record per (delivery, attempt) and every delivery a successful one; nothing is left in either
 * FIFO queue or its DLQ. The same holds for a crash while parked keys are being drained after a
 * resume (the drain goes on from its log after the restart). Every wait is for something
 * observable; the bounds only guard against a hang.
 */
import { GetQueueAttributesCommand, SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, describe, expect, it } from 'vitest';
import { buildNotification } from '../../shared/notifications/publisher';
import { type Received, type Receiver, startReceiver } from '../integration/webhooks/receiver';
import { untilDone } from '../support/api';
import { uid } from '../unit/integrations/fixtures';
import { type CrashableCloud, startCrashableCloud } from './crash-cloud';

// Messages a killed consumer held come back 12 s after they were received (instead of 6 × the
// consumer's timeout), and a consumer runs 8 s at most (instead of 60 s): still longer than an
// invocation can hold them, as AWS requires. (With 5 s and the 60 s timeout, a batch running ten
// records of one key one after another outlasted the visibility on a loaded machine, and a second
// consumer POSTed and recorded the same attempt beside the first.) A consumer with less than a
// quarter of the catalog's 60 s left runs only each key's head and gives the rest back at once
// (shared/edge/queue/groups.ts), so an invocation holds one POST (at most 5 s) and its writes.
// Every answer is a success, so only the crash can make a delivery go twice.
const ENV = {
  LOG_LEVEL: 'WARN',
  LOCAL_QUEUE_VISIBILITY_SECONDS: '12',
  LOCAL_CONSUMER_TIMEOUT_SECONDS: '8',
  WEBHOOK_TIMEOUT_MS: '5000',
  WEBHOOK_RETRY_SCHEDULE: '1',
};
const TYPE = 'modelCreated';
const KEYS = 10;
const PER_KEY = 8;
const SLOW_MS = 400;
/** A hang guard: deliveries held by the killed cloud wait out their visibility (12 s) first. */
const STALL_MS = 120_000;

// biome-ignore lint/suspicious/noExplicitAny: history records are asserted field by field
type AnyRecord = Record<string, any>;

let receiver: Receiver | undefined;
let crashable: CrashableCloud | undefined;

afterAll(async () => {
  await crashable?.stopAll();
  await receiver?.close();
});

/** The cloud running now (the restarted one after the crash). */
function cloudNow(): CrashableCloud {
  if (!crashable) throw new Error('no cloud started');
  return crashable;
}
const call = (method: string, path: string, body?: unknown) => cloudNow().call(method, path, body);

function sqsClient(): SQSClient {
  return new SQSClient({
    endpoint: cloudNow().current.endpoints.sqs,
    region: cloudNow().current.endpoints.region,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    useQueueUrlAsEndpoint: false,
  });
}

function queueUrls(name: 'notificationsOrdered' | 'deliveriesOrdered'): { url: string; dlqUrl: string } {
  const queue = cloudNow().current.endpoints.queues[name];
  if (!queue) throw new Error(`the local cloud has no ${name} queue`);
  return queue;
}

/**
 * Publishes the notifications to the ordered intake as the publisher does (the key as message
 * group), batch after batch in the order given, each batch accepted whole before the next.
 */
async function publishInOrder(notifications: { text: string; orderingKey: string }[]): Promise<void> {
  const sqs = sqsClient();
  try {
    for (let i = 0; i < notifications.length; i += 10) {
      const batch = notifications
        .slice(i, i + 10)
        .map((n) => buildNotification({ notificationType: TYPE, text: n.text, orderingKey: n.orderingKey }));
      const sent = await sqs.send(
        new SendMessageBatchCommand({
          QueueUrl: queueUrls('notificationsOrdered').url,
          Entries: batch.map((message, j) => ({
            Id: String(j),
            MessageBody: JSON.stringify(message),
            MessageGroupId: message.orderingKey,
            MessageDeduplicationId: uid(),
          })),
        }),
      );
      expect(sent.Failed ?? []).toEqual([]);
    }
  } finally {
    sqs.destroy();
  }
}

/** Messages in the queue, visible or in flight. */
async function messagesIn(sqs: SQSClient, url: string): Promise<number> {
  const { Attributes: a = {} } = await sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: url,
      AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
    }),
  );
  return Number(a.ApproximateNumberOfMessages ?? 0) + Number(a.ApproximateNumberOfMessagesNotVisible ?? 0);
}

/** Messages left in both FIFO queues and in their DLQs. */
async function leftInFifoQueues(): Promise<{ queues: number; dlqs: number }> {
  const sqs = sqsClient();
  try {
    const intake = queueUrls('notificationsOrdered');
    const deliveries = queueUrls('deliveriesOrdered');
    const [a, b, c, d] = await Promise.all(
      [intake.url, deliveries.url, intake.dlqUrl, deliveries.dlqUrl].map((url) => messagesIn(sqs, url)),
    );
    return { queues: (a ?? 0) + (b ?? 0), dlqs: (c ?? 0) + (d ?? 0) };
  } finally {
    sqs.destroy();
  }
}

/** Every record of the webhook, all pages. */
async function recordsOf(webhookId: number): Promise<AnyRecord[]> {
  const records: AnyRecord[] = [];
  for (let offset = 0; ; offset += 100) {
    const page = await call(
      'GET',
      `/webhooks/history?includeGlobal=true&webhookId=${webhookId}&pageSize=100&offset=${offset}`,
    );
    expect(page.status, page.text).toBe(200);
    records.push(...page.body.records);
    if (page.body.records.length < 100) return records;
  }
}

const textOf = (post: Received): string => JSON.parse(post.body).text as string;

/** Creates a global ordered webhook POSTing to `url`; answers its id. */
async function orderedWebhook(url: string, name: string): Promise<number> {
  const created = await call('POST', '/webhooks', {
    webhooks: [{ url, name, global: true, notificationType: [TYPE], actionType: 'triggered', ordered: true }],
  });
  expect(created.status, created.text).toBe(201);
  expect(created.body.createdWebhooks[0].ordered).toBe(true);
  return created.body.createdWebhooks[0].id as number;
}

/**
 * Per key, the POSTs in the order received, a repeat of the same webhook-id right after its
 * earlier receipt folded into one: exactly the order published (`<keyPrefix(k)><0…PER_KEY-1>`).
 */
function expectEachKeyInOrder(posts: readonly Received[], keyPrefix: (k: number) => string): void {
  const textAt = (k: number, i: number) => `${keyPrefix(k)}${i}`;
  for (let k = 0; k < KEYS; k++) {
    const ofKey = posts.filter((p) => textOf(p).startsWith(keyPrefix(k)));
    const folded = ofKey.filter(
      (p, i) => i === 0 || ofKey[i - 1]?.headers['webhook-id'] !== p.headers['webhook-id'],
    );
    expect(folded.map(textOf), `key ${k}`).toEqual(Array.from({ length: PER_KEY }, (_, i) => textAt(k, i)));
  }
}

/** One record per (delivery, attempt), and each of `deliveries` a successful record. */
function expectOneRecordPerAttempt(records: readonly AnyRecord[], deliveries: Iterable<string>): void {
  const attempts = records.map((r) => `${r.deliveryId}#${r.attempt}`);
  const twice = records.filter((_, i) => attempts.indexOf(attempts[i] as string) !== i);
  expect(
    twice.map((r) =>
      JSON.stringify({ id: r.id, d: r.deliveryId, a: r.attempt, s: r.statusCode, t: r.request.text }),
    ),
  ).toEqual([]);
  for (const id of deliveries)
    expect(
      records.some((r) => r.deliveryId === id && r.statusCode === 200),
      id,
    ).toBe(true);
}

describe('a crash in the middle of ordered delivery', () => {
  it("loses nothing, records each attempt once and never breaks a key's order", async () => {
    const run = uid().slice(0, 8);
    const inbox = await startReceiver();
    receiver = inbox;
    // Every answer is 200 after SLOW_MS (the answer to a killed connection goes nowhere).
    let unanswered = 0;
    inbox.on('/ordered', (_req, _body, res) => {
      unanswered++;
      setTimeout(() => {
        unanswered--;
        res.writeHead(200).end('ok');
      }, SLOW_MS);
      return 200;
    });
    crashable = await startCrashableCloud(ENV);
    const webhookId = await orderedWebhook(inbox.url('/ordered'), `crash-ordered-${run}`);

    // Round by round, so that each batch holds every key and a key's notifications follow one
    // another across batches.
    const textAt = (k: number, i: number) => `${run}:k${k}:${i}`;
    const published = Array.from({ length: PER_KEY }, (_, i) =>
      Array.from({ length: KEYS }, (_, k) => ({ text: textAt(k, i), orderingKey: `entity:${run}:${k}` })),
    ).flat();
    await publishInOrder(published);

    // The kill comes while POSTs are unanswered, a quarter of the way in.
    await untilDone(
      async () => ({ posts: inbox.byPath('/ordered').length, unanswered }),
      (s) => s.posts >= published.length / 4 && s.unanswered > 0,
      { what: 'the first POSTs', stallMs: STALL_MS },
    );
    const beforeCrash = inbox.byPath('/ordered').length;
    await cloudNow().crashAndRestart();

    const settled = await untilDone(
      async () => {
        const texts = new Set(inbox.byPath('/ordered').map(textOf));
        const records = await recordsOf(webhookId);
        const delivered = new Set(records.filter((r) => r.statusCode === 200).map((r) => r.deliveryId));
        const left = await leftInFifoQueues();
        return { texts, records, delivered, left };
      },
      (s) => s.texts.size >= published.length && s.delivered.size >= published.length && s.left.queues === 0,
      {
        progress: (s) => [s.texts.size, s.records.length, s.delivered.size, s.left],
        what: 'every notification delivered after the crash',
        stallMs: STALL_MS,
      },
    );
    const posts = inbox.byPath('/ordered');
    expect(beforeCrash).toBeLessThan(published.length);

    // Every notification was received.
    expect([...settled.texts].sort()).toEqual(published.map((n) => n.text).sort());

    // Per key, the POSTs in the order received, a repeat of the same webhook-id right after its
    // earlier receipt folded into one: exactly the order published. So no later notification
    // came before an earlier one's first receipt, and no repeat came after a later one.
    expectEachKeyInOrder(posts, (k) => `${run}:k${k}:`);
    // One webhook-id per notification, whatever the repeats.
    const idsByText = new Map<string, Set<string>>();
    for (const post of posts) {
      const ids = idsByText.get(textOf(post)) ?? new Set<string>();
      ids.add(post.headers['webhook-id'] as string);
      idsByText.set(textOf(post), ids);
    }
    expect([...idsByText.values()].every((ids) => ids.size === 1)).toBe(true);
    // The kill landed mid-delivery: some webhook-id was POSTed again after the restart.
    expect(posts.length).toBeGreaterThan(published.length);

    // The history: one record per (delivery, attempt), and every delivery a successful record —
    // the deliveries being exactly the webhook-ids the receiver saw.
    const records = await recordsOf(webhookId);
    const seenIds = new Set(posts.map((p) => p.headers['webhook-id'] as string));
    expect(new Set(records.map((r) => r.deliveryId))).toEqual(seenIds);
    expect(seenIds.size).toBe(published.length);
    expectOneRecordPerAttempt(records, seenIds);

    // Nothing left in either FIFO queue, nothing dead-lettered.
    expect(await leftInFifoQueues()).toEqual({ queues: 0, dlqs: 0 });
  }, 300_000);

  it('a crash in the middle of draining resumed keys loses nothing and keeps each key in order', async () => {
    const run = uid().slice(0, 8);
    const inbox = receiver ?? (await startReceiver());
    receiver = inbox;
    crashable ??= await startCrashableCloud(ENV);
    // Until the resume every head fails (the schedule is one retry: two attempts, then parked);
    // after it, every answer is a slow 200.
    let resumed = false;
    let unanswered = 0;
    inbox.on('/drained', (_req, _body, res) => {
      if (!resumed) {
        res.writeHead(503).end();
        return 503;
      }
      unanswered++;
      setTimeout(() => {
        unanswered--;
        res.writeHead(200).end('ok');
      }, SLOW_MS);
      return 200;
    });
    const webhookId = await orderedWebhook(inbox.url('/drained'), `crash-drained-${run}`);
    const keyOf = (k: number) => `parked:${run}:${k}`;
    const textAt = (k: number, i: number) => `${run}:p${k}:${i}`;
    const published = Array.from({ length: PER_KEY }, (_, i) =>
      Array.from({ length: KEYS }, (_, k) => ({ text: textAt(k, i), orderingKey: keyOf(k) })),
    ).flat();
    await publishInOrder(published);
    // Every key parked with all of its notifications waiting behind its head.
    await untilDone(
      async () => {
        const listed = await call('GET', `/webhooks/${webhookId}/ordering-keys?state=parked`);
        expect(listed.status, listed.text).toBe(200);
        return (listed.body.keys as AnyRecord[]).map((k) => k.waiting as number);
      },
      (waiting) => waiting.length === KEYS && waiting.every((n) => n === PER_KEY),
      { what: 'every key parked', stallMs: STALL_MS },
    );
    const failedBefore = inbox.byPath('/drained').length;
    resumed = true;
    for (let k = 0; k < KEYS; k++) {
      const answer = await call(
        'POST',
        `/webhooks/${webhookId}/ordering-keys/${encodeURIComponent(keyOf(k))}/resume`,
      );
      expect(answer.status, answer.text).toBe(202);
    }
    await untilDone(
      async () => ({ posts: inbox.byPath('/drained').length - failedBefore, unanswered }),
      (s) => s.posts >= published.length / 4 && s.unanswered > 0,
      { what: 'the drains under way', stallMs: STALL_MS },
    );
    await cloudNow().crashAndRestart();

    await untilDone(
      async () => {
        const records = await recordsOf(webhookId);
        const delivered = new Set(records.filter((r) => r.statusCode === 200).map((r) => r.deliveryId));
        const listed = await call('GET', `/webhooks/${webhookId}/ordering-keys`);
        const left = await leftInFifoQueues();
        return { delivered: delivered.size, keys: (listed.body.keys as AnyRecord[]).length, left };
      },
      (s) => s.delivered >= published.length && s.keys === 0 && s.left.queues === 0,
      { what: 'every key drained after the crash', stallMs: STALL_MS },
    );
    // Per key, after the failed tries of its head: the notifications in the order published, a
    // repeat of one webhook-id right after its earlier receipt folded into one.
    const posts = inbox.byPath('/drained').filter((p) => p.status === 200);
    expectEachKeyInOrder(posts, (k) => `${run}:p${k}:`);
    // One record per (delivery, attempt); every delivery has its success.
    const records = await recordsOf(webhookId);
    const deliveries = new Set(records.map((r) => r.deliveryId));
    expect(deliveries.size).toBe(published.length);
    expectOneRecordPerAttempt(records, deliveries);
    expect(await leftInFifoQueues()).toEqual({ queues: 0, dlqs: 0 });
  }, 300_000);
});
