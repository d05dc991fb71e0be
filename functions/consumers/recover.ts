import { queueConsumer } from '../../shared/edge/queue/consumer';
import { RecoverStepSchema, recoverStep } from '../../shared/webhooks/pipeline/recover';

/** Recoveries queue consumer: one step of a webhook recover job per message. */
export const handler = queueConsumer({
  queue: 'recoveries',
  message: { schema: RecoverStepSchema, what: 'recover step' },
  handle: recoverStep,
});
