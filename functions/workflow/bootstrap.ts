/** Lifecycle workflow task: see shared/integrations/tasks.ts. */
import { bootstrapTask } from '../../shared/integrations/tasks';
import { WorkflowInputSchema } from '../../shared/integrations/workflow-events';

export const handler = async (event: unknown) => bootstrapTask(WorkflowInputSchema.parse(event));
