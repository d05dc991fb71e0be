/** Periodic integration checks: see shared/integrations/assurance.ts. */
import { sqsConsumer } from '../../shared/edge/queue-consumer';
import { processCheckMessage } from '../../shared/integrations/assurance';

export const handler = sqsConsumer('integrationChecks', processCheckMessage, { logBatches: true });
