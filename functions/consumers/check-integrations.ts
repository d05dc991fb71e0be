/** Periodic integration checks: see shared/integrations/assurance.ts. */
import { queueConsumer } from '../../shared/edge/queue/consumer';
import { CheckMessageSchema, checkMessage } from '../../shared/integrations/assurance';

export const handler = queueConsumer({
  queue: 'integrationChecks',
  message: { schema: CheckMessageSchema, what: 'check message' },
  handle: checkMessage,
  logBatches: true,
});
