/**
 * The one SQS adapter (`shared/store/queues.ts`) against the local queue emulator: message ids
 * in the order of the bodies across chunks of ten, calls kept within SQS's payload limit of a
 * call, and an entry SQS refuses for the sender's fault fails the send at once, naming the code
 * (never retried into a silent drop).
 */
import { describe, expect, it } from 'vitest';
import { useLocalCloudEnv } from '../../support/api';

describe('the SQS adapter', () => {
  it('sends 23 notifications in three batches and returns each with its own message id', async () => {
    useLocalCloudEnv();
    const { publishNotifications } = await import('../../../shared/notifications/publisher');
    const published = await publishNotifications(
      Array.from({ length: 23 }, (_, i) => ({
        notificationType: 'bulkJobStatus' as const,
        text: `queue adapter ${i}`,
        recipients: [],
      })),
    );
    expect(published.map((p) => p.message.text)).toEqual(
      Array.from({ length: 23 }, (_, i) => `queue adapter ${i}`),
    );
    expect(new Set(published.map((p) => p.messageId)).size).toBe(23);
  });

  it("sends ten 200 KB messages in calls within SQS's 1 MiB a call, each with its own id", async () => {
    useLocalCloudEnv();
    const { sendAll } = await import('../../../shared/store/queues');
    // Not notifications (the fan-out drops them as malformed): what matters is that SQS took them.
    const bodies = Array.from({ length: 10 }, (_, i) => `${i}`.padEnd(200_000, 'x'));
    const ids = await sendAll('notifications', bodies);
    expect(ids).toHaveLength(10);
    expect(new Set(ids).size).toBe(10);
    expect(ids.every((id) => id.length > 0)).toBe(true);
  });

  it('fails at once, naming the code, when SQS refuses an entry for the sender’s fault', async () => {
    useLocalCloudEnv();
    const { sendAll } = await import('../../../shared/store/queues');
    await expect(sendAll('notifications', ['{"ok":true}', 'bad \u0000 body'])).rejects.toThrow(
      /SQS refused a message for notifications \(\w+\)/,
    );
  });
});
