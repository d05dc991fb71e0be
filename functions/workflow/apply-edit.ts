/** Lifecycle workflow task: see shared/integrations/tasks.ts. */
import { applyEditTask, guardTask } from '../../shared/integrations/tasks';
import { WorkflowInputSchema } from '../../shared/integrations/workflow-events';

export const handler = async (event: unknown) =>
  guardTask(() => applyEditTask(WorkflowInputSchema.parse(event)));
