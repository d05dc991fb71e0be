/** Periodic integration checks: see shared/integrations/assurance/ (data sources: ADR 0016). */
import { checkDataSources } from '../../shared/data-sources/assurance';
import { queueConsumer } from '../../shared/edge/queue/consumer';
import { CheckMessageSchema, checkMessage } from '../../shared/integrations/assurance/rounds';

export const handler = queueConsumer({
  queue: 'integrationChecks',
  message: { schema: CheckMessageSchema, what: 'check message' },
  handle: (message) => checkMessage(message, checkDataSources),
  logBatches: true,
});
