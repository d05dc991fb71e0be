/** Lifecycle workflow task: see shared/integrations/tasks.ts. */
import { applyEditTask } from '../../shared/integrations/tasks';
import { WorkflowInputSchema } from '../../shared/integrations/workflow-events';

export const handler = async (event: unknown) => applyEditTask(WorkflowInputSchema.parse(event));
