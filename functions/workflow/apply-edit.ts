/** Lifecycle workflow task: see shared/integrations/workflow/tasks.ts. */

import { WorkflowInputSchema } from '../../shared/integrations/workflow/task-inputs';
import { applyEditTask, guardTask } from '../../shared/integrations/workflow/tasks';

export const handler = async (event: unknown) =>
  guardTask(() => applyEditTask(WorkflowInputSchema.parse(event)));
