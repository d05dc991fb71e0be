/**
 * Figure 13 — count freshness (issue 23). `count` on the history comes from day counters that the
 * history stream's consumer sums off the delivery path, so it lags the records. A fresh user's
 * webhook receives deliveries through the real deliveries consumer (in this process); once the
 * last record is written, the real history query (`queryHistory`, what GET /webhooks/history
 * runs) is polled every 50 ms until its `count` equals the records written. Reported: that lag,
 * with the local cloud's stream poller in between (in AWS: the Lambda event source mapping's
 * batching window and the consumer's run).
 */
import { randomBytes } from 'node:crypto';
import { lambdaContext } from '../infra/local/lambda';
import { deliverHandler } from './delivery';
import { sqsEvent, sqsRecord } from './lib/cloud';
import { startReceiver } from './lib/receiver';
import { median, round, runPool } from './lib/stats';

const NOTIFICATION = 'modelAccessRequested';
/** Guards against a hang only: the stream consumer normally catches up within seconds. */
const HANG_GUARD_MS = 120_000;

export interface CountFreshnessResult {
  rounds: number;
  recordsPerRound: number;
  lagMs: number[];
  medianLagMs: number;
}

export async function countFreshness(options: {
  rounds: number;
  deliveries: number;
}): Promise<CountFreshnessResult> {
  const receiver = await startReceiver();
  try {
    const handler = await deliverHandler();
    const { createPrincipalWithKey } = await import('../shared/auth/keys');
    const { createWebhooks } = await import('../shared/webhooks/api/webhooks');
    const { queryHistory } = await import('../shared/webhooks/api/history');
    const { HistoryQuerySchema } = await import('../shared/webhooks/history-model');
    const lagMs: number[] = [];
    for (let roundNo = 0; roundNo < options.rounds; roundNo++) {
      const issued = await createPrincipalWithKey(
        `bench-freshness-${roundNo}-${randomBytes(3).toString('hex')}`,
        [],
      );
      const owner = { userId: issued.userId, name: issued.name, permissions: [] };
      const out = await createWebhooks(
        owner,
        [
          {
            url: `${receiver.url}/fresh${roundNo}`,
            name: `bench freshness ${roundNo}`,
            global: false,
            notificationType: [NOTIFICATION],
            actionType: 'triggered',
            secret: `whsec_${randomBytes(32).toString('base64')}`,
          },
        ],
        'http://localhost',
      );
      const webhook = out.createdWebhooks[0];
      if (!webhook) throw new Error(`bench webhook refused: ${JSON.stringify(out.errors)}`);
      let n = 0;
      let failed = 0;
      await runPool(Math.ceil(options.deliveries / 10), 4, async () => {
        const records = Array.from({ length: 10 }, () => {
          const i = n++;
          return sqsRecord(
            JSON.stringify({
              v: 1,
              deliveryId: `msg_${randomBytes(16).toString('hex')}_${webhook.id}`,
              webhookId: webhook.id,
              activityId: i,
              notificationType: NOTIFICATION,
              text: `freshness ${i}`,
              metadata: {
                modelId: i,
                modelType: 'datasource',
                targetUser: owner.userId,
                actionBy: owner.userId,
              },
            }),
          );
        });
        const result = await handler(sqsEvent(records), lambdaContext('bench-freshness', 60_000));
        failed += result?.batchItemFailures?.length ?? 0;
      });
      if (failed > 0) throw new Error(`${failed} deliveries failed in the count-freshness run`);
      const written = Date.now();
      const query = HistoryQuerySchema.parse({ pageSize: '1' });
      for (;;) {
        const page = await queryHistory(owner, query);
        if (page.count === n) break;
        if (page.count > n) throw new Error(`count ${page.count} passed the ${n} records written`);
        if (Date.now() - written > HANG_GUARD_MS) throw new Error(`count stuck at ${page.count} of ${n}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      lagMs.push(Date.now() - written);
    }
    return {
      rounds: options.rounds,
      recordsPerRound: Math.ceil(options.deliveries / 10) * 10,
      lagMs,
      medianLagMs: round(median(lagMs)),
    };
  } finally {
    await receiver.close();
  }
}
