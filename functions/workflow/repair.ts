/** Lifecycle workflow task: see shared/integrations/workflow/tasks.ts. */

import { WorkflowInputSchema } from '../../shared/integrations/workflow/task-inputs';
import { guardTask, repairTask } from '../../shared/integrations/workflow/tasks';

export const handler = async (event: unknown) =>
  guardTask(() => repairTask(WorkflowInputSchema.parse(event)));
