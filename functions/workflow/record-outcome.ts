/** Lifecycle workflow task: records the final status (see shared/integrations/workflow/outcome.ts). */
import { recordOutcome } from '../../shared/integrations/workflow/outcome';
import { OutcomeInputSchema } from '../../shared/integrations/workflow/task-inputs';

export const handler = async (event: unknown) => recordOutcome(OutcomeInputSchema.parse(event));
