/** Lifecycle workflow task: records the final status (see shared/integrations/outcome.ts). */
import { recordOutcome } from '../../shared/integrations/outcome';
import { OutcomeEventSchema } from '../../shared/integrations/workflow-events';

export const handler = async (event: unknown) => recordOutcome(OutcomeEventSchema.parse(event));
