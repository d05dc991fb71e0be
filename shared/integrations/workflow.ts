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
import { workflowEnvVar } from '../catalog/workflows';
import { requireEnv } from '../config/env';
import type { ExecutionState } from './lifecycle';
import { executionName, type WorkflowInput } from './model';

const sfn = new SFNClient({});

function stateMachineArn(): string {
  return requireEnv(workflowEnvVar('integrationLifecycle'));
}

export function executionArn(integrationId: number, requestId: string): string {
  return `${stateMachineArn().replace(':stateMachine:', ':execution:')}:${executionName(integrationId, requestId)}`;
}

export async function startLifecycle(input: WorkflowInput): Promise<void> {
  try {
    await sfn.send(
      new StartExecutionCommand({
        stateMachineArn: stateMachineArn(),
        name: executionName(input.integrationId, input.requestId),
        input: JSON.stringify(input),
      }),
    );
  } catch (error) {
    // Same name, different input can only be a bug; same name and input is already accepted.
    if (!(error instanceof ExecutionAlreadyExists)) throw error;
  }
}

export async function executionState(integrationId: number, requestId: string): Promise<ExecutionState> {
  try {
    const out = await sfn.send(
      new DescribeExecutionCommand({ executionArn: executionArn(integrationId, requestId) }),
    );
    return (out.status ?? 'RUNNING') as ExecutionState;
  } catch (error) {
    if (error instanceof ExecutionDoesNotExist || (error as Error).name === 'ExecutionDoesNotExist')
      return 'missing';
    throw error;
  }
}
