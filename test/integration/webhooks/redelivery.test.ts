/**
 * What the history says after a try of an attempt ended without its record (ADR 0014), step by
 * step through the real delivery consumer: a redelivered message whose earlier receive left no
 * record is recorded as possibly delivered before (a scheduled retry is not), and a recover job's
 * re-send whose holder died is taken over once its lease has run out — made final without a
 * second POST when its record exists, sent again and flagged when it does not.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MessageContext } from '../../../shared/edge/queue/contract';
import { createKey, useLocalCloudEnv } from '../../support/api';
import {
  type AnyRecord,
  allHistory,
  batchPutHistory,
  createHooks,
  personalHook,
  sqsRecordOf,
} from './helpers';
import { type Receiver, reply, startReceiver } from './receiver';

let receiver: Receiver;
let owner: { userId: number; apiKey: string };

beforeAll(async () => {
  receiver = await startReceiver();
  owner = await createKey('redelivery');
  useLocalCloudEnv();
  // The receiver is on loopback, as in the local stage.
  process.env.ALLOW_PRIVATE_TARGETS = 'true';
});
afterAll(async () => {
  await receiver.close();
});

const lambda = { getRemainingTimeInMillis: () => 50_000 };
const recordsOf = async (webhookId: number): Promise<AnyRecord[]> =>
  (await allHistory(owner.apiKey)).filter((r) => r.webhooksId === webhookId);

function deliveryBody(webhookId: number, deliveryId: string): string {
  return JSON.stringify({
    v: 1,
    deliveryId,
    webhookId,
    activityId: 11,
    notificationType: 'queryCreated',
    text: 'redelivered',
    metadata: {},
  });
}

describe('a redelivered automatic attempt', () => {
  it('is recorded as possibly delivered before when its earlier receive left no record', async () => {
    const { handler } = await import('../../../functions/consumers/deliver');
    const [webhookId] = (await createHooks(owner.apiKey, [
      personalHook(receiver, 'unrecorded', 'queryCreated'),
    ])) as [number];
    const deliveryId = `msg_${randomBytes(16).toString('hex')}_${webhookId}`;
    // Its second receive: the first one died after (or before) its POST, leaving no record.
    await handler.processRecord(
      sqsRecordOf(deliveryBody(webhookId, deliveryId), { attributes: { ApproximateReceiveCount: '2' } }),
      lambda,
    );
    expect(receiver.byPath('/unrecorded')).toHaveLength(1);
    const [record] = await recordsOf(webhookId);
    expect(record).toMatchObject({ deliveryId, attempt: 2, statusCode: 200, possiblyDeliveredBefore: true });
  });

  it('is not flagged after a scheduled retry, whose earlier attempt is recorded', async () => {
    const { handler } = await import('../../../functions/consumers/deliver');
    const [webhookId] = (await createHooks(owner.apiKey, [
      personalHook(receiver, 'retried', 'queryCreated'),
    ])) as [number];
    let calls = 0;
    receiver.on('/retried', (req, body, res) => reply(++calls === 1 ? 500 : 200)(req, body, res));
    const deliveryId = `msg_${randomBytes(16).toString('hex')}_${webhookId}`;
    const body = deliveryBody(webhookId, deliveryId);
    // Attempt 1 fails and is recorded (its retry's visibility call has no real message to act on).
    await handler.processRecord(sqsRecordOf(body), lambda);
    await handler.processRecord(sqsRecordOf(body, { attributes: { ApproximateReceiveCount: '2' } }), lambda);
    const records = await recordsOf(webhookId);
    expect(records.map((r) => [r.attempt, r.statusCode, r.possiblyDeliveredBefore]).sort()).toEqual([
      [1, 500, undefined],
      [2, 200, undefined],
    ]);
  });
});

describe('a recover job’s re-send taken over after its holder died', () => {
  async function failedDelivery(name: string) {
    const [webhookId] = (await createHooks(owner.apiKey, [personalHook(receiver, name, 'queryCreated')])) as [
      number,
    ];
    const { newHistoryItem } = await import('../../../shared/webhooks/store/history');
    const deliveryId = `msg_${randomBytes(16).toString('hex')}_${webhookId}`;
    const original = await newHistoryItem({
      request: {
        text: 'to re-send',
        metadata: { notificationType: 'queryCreated' },
        webhookId,
        webhookName: name,
      },
      response: { body: '' },
      statusCode: 500,
      durationMs: 1,
      notificationType: 'queryCreated',
      webhooksActivityId: 3,
      webhooksId: webhookId,
      url: receiver.url(`/${name}`),
      name,
      actionType: 'triggered',
      createdBy: owner.userId,
      deliveryId,
      attempt: 1,
      global: false,
    });
    await batchPutHistory([original]);
    const jobId = `rj_${randomBytes(16).toString('hex')}`;
    const message = { v: 1 as const, webhookId, resend: { jobId, deliveryId, seq: 1 } };
    return { webhookId, deliveryId, jobId, message, leaseId: `resend#${jobId}#${deliveryId}` };
  }

  const context = (): MessageContext => ({
    attempt: 2,
    redelivered: true,
    deadline: Date.now() + 50_000,
    messageId: `m-${randomBytes(4).toString('hex')}`,
  });

  /** The lease as a holder left it that took it `agoMs` ago and died (65 s leases, as the consumer's). */
  async function leftByDeadHolder(leaseId: string, agoMs: number): Promise<void> {
    const { takeStep, unmark } = await import('../../../shared/webhooks/store/dedup');
    await unmark(leaseId);
    await takeStep(leaseId, 65_000, 1, Date.now() - agoMs, 'dead-holder');
  }

  it('waits while the lease runs, then sends it again under the same webhook-id and flags the record', async () => {
    const { deliver } = await import('../../../shared/webhooks/pipeline/delivery');
    const { takeStep } = await import('../../../shared/webhooks/store/dedup');
    const { webhookId, deliveryId, message, leaseId } = await failedDelivery('taken-over');
    // Taken 10 s ago by a holder that may have POSTed, then died: back when the lease ends.
    await leftByDeadHolder(leaseId, 10_000);
    expect(await deliver(message, context())).toMatchObject({ kind: 'retry' });
    expect(receiver.byPath('/taken-over')).toHaveLength(0);

    await leftByDeadHolder(leaseId, 70_000);
    expect(await deliver(message, context())).toEqual({ kind: 'done' });
    expect(receiver.byPath('/taken-over').map((p) => p.headers['webhook-id'])).toEqual([deliveryId]);
    const resent = (await recordsOf(webhookId)).filter((r) => r.retryOf !== undefined);
    expect(resent).toMatchObject([{ deliveryId, statusCode: 200, possiblyDeliveredBefore: true }]);
    // Final now: a copy of the message is dropped.
    expect(await takeStep(leaseId, 65_000, 1)).toEqual({ state: 'done' });
    expect(await deliver(message, context())).toEqual({ kind: 'done' });
    expect(receiver.byPath('/taken-over')).toHaveLength(1);
  });

  it('only makes the lease final, without a second POST, when the dead holder had recorded the re-send', async () => {
    const { deliver } = await import('../../../shared/webhooks/pipeline/delivery');
    const { takeStep } = await import('../../../shared/webhooks/store/dedup');
    const { webhookId, message, leaseId } = await failedDelivery('recorded-before');
    expect(await deliver(message, context())).toEqual({ kind: 'done' });
    expect(receiver.byPath('/recorded-before')).toHaveLength(1);
    // As if that holder had died between its record and making the lease final.
    await leftByDeadHolder(leaseId, 70_000);
    expect(await deliver(message, context())).toEqual({ kind: 'done' });
    expect(receiver.byPath('/recorded-before')).toHaveLength(1);
    const resent = (await recordsOf(webhookId)).filter((r) => r.retryOf !== undefined);
    expect(resent).toHaveLength(1);
    expect(resent[0]?.possiblyDeliveredBefore).toBeUndefined();
    expect(await takeStep(leaseId, 65_000, 1)).toEqual({ state: 'done' });
  });
});
