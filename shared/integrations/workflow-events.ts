/** Shapes of the lifecycle workflow's task inputs (validated at each task's edge). */
import * as z from 'zod';
import { OperationSchema } from '../platforms/port';

export const WorkflowInputSchema = z.object({
  integrationId: z.number().int().positive(),
  operation: OperationSchema,
  requestId: z.string().min(1).max(64),
  credentialsRef: z.string().min(1).max(128).optional(),
});

export const OutcomeEventSchema = WorkflowInputSchema.omit({ credentialsRef: true }).extend({
  outcome: z.enum(['succeeded', 'failed']),
  error: z.object({ Error: z.string().optional(), Cause: z.string().optional() }).optional(),
});

/** The ASL's execution input: ids only, never secrets. */
export type WorkflowInput = z.infer<typeof WorkflowInputSchema>;
