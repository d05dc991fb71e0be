/** Lifecycle workflow task: see shared/integrations/tasks.ts. */
import { compensateTask, guardTask } from '../../shared/integrations/tasks';
import { WorkflowInputSchema } from '../../shared/integrations/workflow-events';

export const handler = async (event: unknown) =>
  guardTask(() => compensateTask(WorkflowInputSchema.parse(event)));
