/** Lifecycle workflow task: see shared/integrations/workflow/tasks.ts. */

import { WorkflowInputSchema } from '../../shared/integrations/workflow/task-inputs';
import { bootstrapTask, guardTask } from '../../shared/integrations/workflow/tasks';

export const handler = async (event: unknown) =>
  guardTask(() => bootstrapTask(WorkflowInputSchema.parse(event)));
