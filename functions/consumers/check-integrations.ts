/** Periodic integration checks: see shared/integrations/assurance/. */
import { queueConsumer } from '../../shared/edge/queue/consumer';
import { CheckMessageSchema, checkMessage } from '../../shared/integrations/assurance/rounds';

export const handler = queueConsumer({
  queue: 'integrationChecks',
  message: { schema: CheckMessageSchema, what: 'check message' },
  handle: checkMessage,
  logBatches: true,
});
