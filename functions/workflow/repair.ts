/** Lifecycle workflow task: see shared/integrations/tasks.ts. */
import { guardTask, repairTask } from '../../shared/integrations/tasks';
import { WorkflowInputSchema } from '../../shared/integrations/workflow-events';

export const handler = async (event: unknown) =>
  guardTask(() => repairTask(WorkflowInputSchema.parse(event)));
