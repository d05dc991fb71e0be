/** Lifecycle workflow task: see shared/integrations/workflow/tasks.ts. */

import { WorkflowInputSchema } from '../../shared/integrations/workflow/task-inputs';
import { compensateTask, guardTask } from '../../shared/integrations/workflow/tasks';

export const handler = async (event: unknown) =>
  guardTask(() => compensateTask(WorkflowInputSchema.parse(event)));
