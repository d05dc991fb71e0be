/**
 * Starting and inspecting lifecycle executions (Step Functions; the local cloud serves the same
 * API). The execution name is derived from the integration id and the request id, so a
 * repeated start for the same accepted request is idempotent rather than a second run.
 */
import {
  DescribeExecutionCommand,
  ExecutionAlreadyExists,
  ExecutionDoesNotExist,
  SFNClient,
  StartExecutionCommand,
} from '@aws-sdk/client-sfn';
import { workflowEnvVar } from '../../catalog/workflows';
import { requireEnv } from '../../config/env';
import { withoutSdkLogging } from '../../config/sdk-clients';
import type { ExecutionState } from '../lifecycle';
import { executionName } from '../model';
import type { WorkflowInput } from './task-inputs';

const sfn = withoutSdkLogging(new SFNClient({}));

function stateMachineArn(): string {
  return requireEnv(workflowEnvVar('integrationLifecycle'));
}

/** An undo-only execution (the reconciler's, `compensate: true`) is named apart from the request's own. */
const nameOf = (integrationId: number, requestId: string, undo = false) =>
  executionName(integrationId, undo ? `${requestId}-undo` : requestId);

function executionArn(integrationId: number, requestId: string, undo = false): string {
  return `${stateMachineArn().replace(':stateMachine:', ':execution:')}:${nameOf(integrationId, requestId, undo)}`;
}

export async function startLifecycle(input: WorkflowInput): Promise<void> {
  try {
    await sfn.send(
      new StartExecutionCommand({
        stateMachineArn: stateMachineArn(),
        name: nameOf(input.integrationId, input.requestId, input.compensate === true),
        input: JSON.stringify(input),
      }),
    );
  } catch (error) {
    // Same name, different input can only be a bug; same name and input is already accepted.
    if (!(error instanceof ExecutionAlreadyExists)) throw error;
  }
}

export async function executionState(
  integrationId: number,
  requestId: string,
  undo = false,
): Promise<ExecutionState> {
  try {
    const out = await sfn.send(
      new DescribeExecutionCommand({ executionArn: executionArn(integrationId, requestId, undo) }),
    );
    return (out.status ?? 'RUNNING') as ExecutionState;
  } catch (error) {
    if (error instanceof ExecutionDoesNotExist || (error as Error).name === 'ExecutionDoesNotExist')
      return 'missing';
    throw error;
  }
}
