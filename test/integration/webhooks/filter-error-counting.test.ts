/**
 * Counting a webhook's filter errors (`filterErrors`) is bookkeeping: when that write fails, the
 * notification's fan-out still enqueues every delivery that passed, and the failures are still
 * in the log and the `FilterErrors` metric (issue 26). The fan-out step runs in this process
 * against the local cloud's tables and queues, so a middleware on the shared DynamoDB client can
 * fail the counter writes; the cloud's delivery consumer then delivers what was enqueued.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { call, createKey, useLocalCloudEnv } from '../../support/api';
import { createHooks, injectDynamoFailures, processNotification, sqsRecordOf, untilCount } from './helpers';
import { type Receiver, startReceiver } from './receiver';

const X = 'modelAccessRequested';

let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
});

/** The JSON lines `run` writes to stdout and stderr (the logger's lines and the EMF metrics). */
async function output<T>(run: () => Promise<T>): Promise<{ result: T; lines: Record<string, unknown>[] }> {
  const chunks: string[] = [];
  const capture = (chunk: string | Uint8Array) => {
    chunks.push(String(chunk));
    return true;
  };
  vi.spyOn(process.stdout, 'write').mockImplementation(capture);
  vi.spyOn(process.stderr, 'write').mockImplementation(capture);
  try {
    const result = await run();
    return {
      result,
      lines: chunks
        .flatMap((c) => c.split('\n'))
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as Record<string, unknown>),
    };
  } finally {
    vi.restoreAllMocks();
  }
}

describe('a failing filter-error count', () => {
  it('leaves the fan-out whole: the passing webhooks are delivered, the errors logged and in the metric', async () => {
    useLocalCloudEnv();
    const { dynamodb } = await import('../../../shared/store/clients');
    const { buildNotification } = await import('../../../shared/notifications/publisher');
    const owner = await createKey('filter-count-fails');
    const hook = (name: string, filter?: string) => ({
      name,
      url: receiver.url(`/${name}`),
      global: false,
      notificationType: [X],
      actionType: 'triggered',
      ...(filter !== undefined ? { filter } : {}),
    });
    const [erring, plain, passing] = await createHooks(owner.apiKey, [
      // The notification has no dataSourceId: a run-time error, counted on the webhook.
      hook('count-erring', 'metadata.dataSourceId == 42'),
      hook('count-plain'),
      hook('count-passing', 'text.startsWith("counted")'),
    ]);
    const notification = buildNotification({
      notificationType: X,
      text: 'counted or not',
      metadata: { region: 'eu' },
      recipients: [owner.userId],
      id: `count-fails-${randomUUID()}`,
    });
    const record = sqsRecordOf(JSON.stringify(notification));

    const failed: string[] = [];
    // Every write to the counts table, where `filterErrors` is kept, fails.
    const remove = injectDynamoFailures(dynamodb, (command, table) => {
      const fails = table.endsWith('deliveryCounts') && command === 'UpdateItemCommand';
      if (fails) failed.push(command);
      return fails;
    });
    const step = await output(() =>
      processNotification(record, { getRemainingTimeInMillis: () => 30_000 }),
    ).finally(remove);

    // The count was attempted and failed; the fan-out went on and finished.
    expect(failed).toEqual(['UpdateItemCommand']);
    expect(step.result).toEqual({ deliveries: 2 });
    const line = (message: string) => step.lines.find((l) => l.message === message);
    const fannedOut = (line('notification fanned out')?.webhookIds ?? []) as number[];
    expect([...fannedOut].sort()).toEqual([plain, passing].sort());
    expect(line('webhook filters failed: no delivery')).toMatchObject({
      count: 1,
      // The kind of the failure, never its message (issue 34, item 16).
      failures: [{ webhookId: erring, kind: 'no_such_key' }],
    });
    expect(line('filter errors not counted on the webhooks')).toMatchObject({
      level: 'ERROR',
      webhookIds: [erring],
      errorName: 'InternalServerError',
    });
    const emf = step.lines.filter((l) => '_aws' in l && 'FilterErrors' in l);
    expect(emf.map((l) => l.FilterErrors)).toEqual([1]);

    // What was enqueued is delivered (by the cloud's delivery consumer), and nothing to the erring one.
    await untilCount(() => receiver.byPath('/count-plain').length, 1, 'the unfiltered delivery');
    await untilCount(() => receiver.byPath('/count-passing').length, 1, 'the filtered delivery');
    expect(receiver.byPath('/count-erring')).toEqual([]);
    // The failed write counted nothing on the webhook.
    const view = await call('GET', `/webhooks/${erring}`, { key: owner.apiKey });
    expect(view.body.health.filterErrors).toBe(0);
  });
});
