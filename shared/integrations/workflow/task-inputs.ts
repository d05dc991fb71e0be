/** Shapes of the lifecycle workflow's task inputs (validated at each task's edge). */
import * as z from 'zod';
import { LifecycleOperationSchema } from '../lifecycle';

/** An error a Catch captured (Step Functions `{Error, Cause}`). */
const TaskErrorSchema = z.object({ Error: z.string().optional(), Cause: z.string().optional() });

export const WorkflowInputSchema = z.object({
  integrationId: z.number().int().positive(),
  operation: LifecycleOperationSchema,
  requestId: z.string().min(1).max(64),
  credentialsRef: z.string().min(1).max(128).optional(),
  /**
   * Set by the reconciler for an operation whose execution was lost after remote steps ran: this
   * execution only undoes them and records the failure (`error` says why).
   */
  compensate: z.literal(true).optional(),
  error: TaskErrorSchema.optional(),
});

export const OutcomeInputSchema = WorkflowInputSchema.omit({ credentialsRef: true, compensate: true }).extend(
  {
    outcome: z.enum(['succeeded', 'failed']),
    error: TaskErrorSchema.optional(),
    /** The failure of the undo that followed a failed create or edit, if it failed too. */
    undoError: TaskErrorSchema.optional(),
  },
);

/** The ASL's execution input: ids only, never secrets. */
export type WorkflowInput = z.infer<typeof WorkflowInputSchema>;
