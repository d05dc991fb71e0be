/**
 * The environment that points shared code (store, auth, publishers) at a running local cloud:
 * emulator endpoints plus the cataloged table, queue and state machine variables. The local
 * cloud gives its handlers this environment; the CLI and the tests apply it to themselves
 * from `STATE_DIR/endpoints.json`.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DELIVERY_PRINCIPAL_ENV } from '../../shared/catalog/access';
import { functionEnvVar } from '../../shared/catalog/functions';
import { dlqEnvVar, type QueueName, queueEnvVar } from '../../shared/catalog/queues';
import { type TableName, tableEnvVar } from '../../shared/catalog/tables';
import { type WorkflowName, workflowEnvVar } from '../../shared/catalog/workflows';
import { deliveryPrincipalRoleName } from '../outputs';
import type { Endpoints } from './cloud';
import { SERVICE_ACCOUNT } from './customer-account/account';

/**
 * The local stage's webhook delivery principal (ADR 0019): the ARN the role would have in AWS,
 * in the local account, so what `GET /webhooks/aws-trust` answers locally has AWS's shape.
 */
export function localDeliveryPrincipalArn(stage: string): string {
  return `arn:aws:iam::${SERVICE_ACCOUNT}:role/${deliveryPrincipalRoleName(stage)}`;
}

export interface ClientEndpoints {
  dynamodb: string;
  sqs: string;
  stepfunctions: string;
  region: string;
  tables: Record<string, string>;
  queues: Record<string, { url: string; dlqUrl: string }>;
  stateMachines: Record<string, string>;
  lambda: string;
  /** Internal function name (catalog) → physical function name. */
  functions: Record<string, string>;
  /** The webhook delivery principal's role ARN (`localDeliveryPrincipalArn`). */
  deliveryPrincipalArn: string;
}

/**
 * What the local cloud's own SDK clients (DynamoDB Local, its streams, the SQS emulator) are
 * built with: the emulator's endpoint and placeholder credentials, which no emulator checks.
 */
export function emulatorClientConfig(endpoint: string) {
  return {
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  };
}

export function clientEnvironment(endpoints: ClientEndpoints): Record<string, string> {
  const env: Record<string, string> = {
    AWS_REGION: endpoints.region,
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    AWS_ENDPOINT_URL_DYNAMODB: endpoints.dynamodb,
    AWS_ENDPOINT_URL_SQS: endpoints.sqs,
    AWS_ENDPOINT_URL_SFN: endpoints.stepfunctions,
    AWS_ENDPOINT_URL_LAMBDA: endpoints.lambda,
    [DELIVERY_PRINCIPAL_ENV]: endpoints.deliveryPrincipalArn,
  };
  for (const [name, physical] of Object.entries(endpoints.functions)) env[functionEnvVar(name)] = physical;
  for (const [name, physical] of Object.entries(endpoints.tables))
    env[tableEnvVar(name as TableName)] = physical;
  for (const [name, q] of Object.entries(endpoints.queues)) {
    env[queueEnvVar(name as QueueName)] = q.url;
    env[dlqEnvVar(name as QueueName)] = q.dlqUrl;
  }
  for (const [name, arn] of Object.entries(endpoints.stateMachines))
    env[workflowEnvVar(name as WorkflowName)] = arn;
  return env;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The endpoints of the local cloud running on `stateDir`, or an error naming STATE_DIR and why
 * none runs there: no endpoints file, or one a killed cloud left behind (its pid is gone). Every
 * local CLI command starts here, so none can act silently on a directory the service never reads.
 */
export function readEndpoints(stateDir: string): Endpoints {
  const file = join(stateDir, 'endpoints.json');
  const start = 'start one with npm start, or set STATE_DIR to the directory it uses (and export it)';
  let endpoints: Endpoints;
  try {
    endpoints = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    throw new Error(`no local cloud is running on STATE_DIR ${stateDir} (no ${file}); ${start}`);
  }
  if (!Number.isInteger(endpoints.pid) || !alive(endpoints.pid))
    throw new Error(
      `no local cloud is running on STATE_DIR ${stateDir} (${file} names pid ${endpoints.pid}, which is not running); ${start}`,
    );
  return endpoints;
}
