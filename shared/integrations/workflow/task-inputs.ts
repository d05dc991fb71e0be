/** Shapes of the lifecycle workflow's task inputs (validated at each task's edge). */
import * as z from 'zod/mini';
import { LifecycleOperationSchema } from '../lifecycle';

/** An error a Catch captured (Step Functions `{Error, Cause}`). */
const TaskErrorSchema = z.object({ Error: z.optional(z.string()), Cause: z.optional(z.string()) });

export const WorkflowInputSchema = z.object({
  integrationId: z.int().check(z.positive()),
  operation: LifecycleOperationSchema,
  requestId: z.string().check(z.minLength(1), z.maxLength(64)),
  credentialsRef: z.optional(z.string().check(z.minLength(1), z.maxLength(128))),
  /**
   * Set by the reconciler for an operation whose execution was lost after remote steps ran: this
   * execution only undoes them and records the failure (`error` says why).
   */
  compensate: z.optional(z.literal(true)),
  error: z.optional(TaskErrorSchema),
});

export const OutcomeInputSchema = z.extend(
  z.omit(WorkflowInputSchema, { credentialsRef: true, compensate: true }),
  {
    outcome: z.enum(['succeeded', 'failed']),
    error: z.optional(TaskErrorSchema),
    /** The failure of the undo that followed a failed create or edit, if it failed too. */
    undoError: z.optional(TaskErrorSchema),
  },
);

/** The ASL's execution input: ids only, never secrets. */
export type WorkflowInput = z.infer<typeof WorkflowInputSchema>;
