/**
 * Bounded fan-out: a step enqueues at most FANOUT_CHUNK deliveries and continues in a follow-up
 * message that carries the notification's trace; every webhook gets exactly one delivery.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseTraceparent } from '../../../shared/observability/trace';
import { createKey, untilDone, useLocalCloudEnv } from '../../support/api';
import { createHooks, pipelineMarker, processNotification, sqsRecordOf } from './helpers';
import { type Receiver, startReceiver } from './receiver';

let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
});

describe('fan-out in bounded steps', () => {
  it('continues in follow-up messages with the trace context, one delivery per webhook', async () => {
    useLocalCloudEnv();
    const { buildNotification } = await import('../../../shared/notifications/publisher');
    const owner = await createKey('fan-out-steps');
    const type = 'taskValidated';
    const names = Array.from({ length: 7 }, (_, i) => `step-${i}`);
    await createHooks(
      owner.apiKey,
      names.map((name) => ({
        name,
        url: receiver.url(`/${name}`),
        global: false,
        notificationType: [type],
        actionType: 'triggered',
      })),
    );
    const notification = buildNotification({
      notificationType: type,
      text: 'wide',
      recipients: [owner.userId],
      id: `steps-${randomUUID()}`,
    });
    const traceId = randomUUID().replaceAll('-', '');
    const record = sqsRecordOf(JSON.stringify(notification), {
      attributes: {
        AWSTraceHeader: `Root=1-${traceId.slice(0, 8)}-${traceId.slice(8, 32)};Parent=0123456789abcdef;Sampled=1`,
      },
    });
    // This step runs here with steps of 3; the cloud's fan-out takes the follow-up.
    process.env.FANOUT_CHUNK = '3';
    try {
      expect(await processNotification(record, { getRemainingTimeInMillis: () => 30_000 })).toEqual({
        deliveries: 3,
      });
      // A redelivered step is skipped.
      expect(await processNotification(record, { getRemainingTimeInMillis: () => 30_000 })).toEqual({
        deliveries: 0,
      });
    } finally {
      delete process.env.FANOUT_CHUNK;
    }
    const posts = () => names.flatMap((name) => receiver.byPath(`/${name}`));
    await untilDone(
      async () => posts().length,
      (n) => n >= names.length,
      { what: 'stepped fan-out' },
    );
    // The last step queued the last of them; a marker sent through the pipeline after that has
    // arrived: a second delivery to any webhook would have come before it.
    await pipelineMarker(receiver, owner);
    expect(names.map((name) => receiver.byPath(`/${name}`).length)).toEqual(names.map(() => 1));
    const traces = new Set(posts().map((p) => parseTraceparent(p.headers.traceparent)?.traceId));
    expect([...traces]).toEqual([traceId]);
  });
});
