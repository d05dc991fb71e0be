/** Lifecycle workflow task: see shared/integrations/tasks.ts. */
import { bootstrapTask, guardTask } from '../../shared/integrations/tasks';
import { WorkflowInputSchema } from '../../shared/integrations/workflow-events';

export const handler = async (event: unknown) =>
  guardTask(() => bootstrapTask(WorkflowInputSchema.parse(event)));
