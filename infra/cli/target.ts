/**
 * Where the CLI acts: the running local cloud (default; from STATE_DIR/endpoints.json) or a
 * deployed stage (`--stage NAME`, using the caller's AWS credentials and the stack's outputs).
 * Either way the result is environment variables for the shared modules, so the CLI runs the
 * same code as the functions; commands that go through the HTTP API read its URL from
 * `CAUSEWAY_API_URL`.
 */
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { DELIVERY_PRINCIPAL_ENV } from '../../shared/catalog/access';
import { queueEnvVar, queues } from '../../shared/catalog/queues';
import { tableEnvVar, tables } from '../../shared/catalog/tables';
import { clientEnvironment, readEndpoints } from '../local/env';
import {
  API_URL_OUTPUT,
  DELIVERY_PRINCIPAL_OUTPUT,
  queueOutputName,
  SECRETS_KEY_OUTPUT,
  stackName,
  tableOutputName,
} from '../outputs';
import { loadStages } from '../stages';

/** The base URL of the target's HTTP API (for the typed client, infra/cli/api.ts). */
export const API_URL_ENV = 'CAUSEWAY_API_URL';

/** The local cloud's state directory: `STATE_DIR` when set (it must be exported), else `.causeway`. */
export function localStateDir(): string {
  return process.env.STATE_DIR || '.causeway';
}

export async function targetEnvironment(stage: string | undefined): Promise<Record<string, string>> {
  if (!stage || stage === 'local') {
    const stateDir = localStateDir();
    const endpoints = readEndpoints(stateDir);
    return {
      ...clientEnvironment(endpoints),
      LOCAL_MASTER_KEY_FILE: `${stateDir}/master.key`,
      [API_URL_ENV]: endpoints.gateway,
    };
  }
  const stages = loadStages();
  if (!stages[stage]?.deploy) throw new Error(`unknown deployable stage "${stage}"`);
  const cfn = new CloudFormationClient({});
  const out = await cfn.send(new DescribeStacksCommand({ StackName: stackName(stage) }));
  const outputs = new Map((out.Stacks?.[0]?.Outputs ?? []).map((o) => [o.OutputKey, o.OutputValue]));
  const env: Record<string, string> = {};
  const need = (key: string): string => {
    const value = outputs.get(key);
    if (!value) throw new Error(`stack ${stackName(stage)} has no output ${key}; deploy it first`);
    return value;
  };
  for (const table of tables) env[tableEnvVar(table.name)] = need(tableOutputName(table.name));
  for (const queue of queues) env[queueEnvVar(queue.name)] = need(queueOutputName(queue.name));
  env.SECRETS_KMS_KEY_ID = need(SECRETS_KEY_OUTPUT);
  env[DELIVERY_PRINCIPAL_ENV] = need(DELIVERY_PRINCIPAL_OUTPUT);
  env[API_URL_ENV] = need(API_URL_OUTPUT);
  return env;
}
