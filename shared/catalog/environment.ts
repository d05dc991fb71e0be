/**
 * What a function's `FunctionAccess` turns into, as data: one binding per cataloged resource
 * the function may touch, each with the environment variable(s) that name it. The CDK function
 * wrapper walks these bindings to set the variables and the matching IAM grants; the local cloud
 * walks the same bindings to decide which variables a handler sees on each invocation. One
 * function feeds both, so a grant missing from the catalog fails locally exactly as it would
 * in AWS (the variable is "not set"), instead of passing locally because every variable exists.
 */
import { DELIVERY_PRINCIPAL_ENV, type FunctionAccess } from './access';
import { functionEnvVar, internalFunctions } from './functions';
import { dlqEnvVar, type QueueName, queueEnvVar, queues } from './queues';
import { type TableName, tableEnvVar, tables } from './tables';
import { type WorkflowName, workflowEnvVar, workflows } from './workflows';

/** The variable that names the secrets key (KMS in AWS). */
const SECRETS_KEY_ENV = 'SECRETS_KMS_KEY_ID';
/** The local cloud's stand-in for the KMS key: a master key file in the state directory. */
export const LOCAL_SECRETS_KEY_ENV = 'LOCAL_MASTER_KEY_FILE';

export type ResourceBinding =
  | { kind: 'table'; name: TableName; access: 'read' | 'readWrite'; env: string }
  | { kind: 'queue'; name: QueueName; env: string; dlqEnv: string }
  | { kind: 'workflow'; name: WorkflowName; env: string }
  | { kind: 'secretsKey'; env: typeof SECRETS_KEY_ENV }
  | { kind: 'function'; name: string; env: string }
  | { kind: 'deliveryPrincipal'; assume: boolean; env: typeof DELIVERY_PRINCIPAL_ENV };

/**
 * Every resource binding an access grants, each resource once. `consumes` is the queue a
 * consumer function is attached to (it gets that queue's and DLQ's URLs, to dead-letter itself).
 */
export function resourceBindings(access: FunctionAccess, consumes?: QueueName): ResourceBinding[] {
  const bindings: ResourceBinding[] = [];
  for (const grant of access.tables ?? []) {
    bindings.push({ kind: 'table', name: grant.table, access: grant.access, env: tableEnvVar(grant.table) });
  }
  const sendsTo = new Set<QueueName>(access.sendsTo ?? []);
  if (consumes) sendsTo.add(consumes);
  for (const name of sendsTo) {
    bindings.push({ kind: 'queue', name, env: queueEnvVar(name), dlqEnv: dlqEnvVar(name) });
  }
  if (access.startsWorkflow) {
    for (const { name } of workflows) bindings.push({ kind: 'workflow', name, env: workflowEnvVar(name) });
  }
  if (access.usesSecrets) bindings.push({ kind: 'secretsKey', env: SECRETS_KEY_ENV });
  for (const name of new Set(access.invokes ?? [])) {
    bindings.push({ kind: 'function', name, env: functionEnvVar(name) });
  }
  if (access.deliveryPrincipal) {
    bindings.push({
      kind: 'deliveryPrincipal',
      assume: access.deliveryPrincipal === 'assume',
      env: DELIVERY_PRINCIPAL_ENV,
    });
  }
  return bindings;
}

/** The variable names a binding sets (a queue sets two; the secrets key has a local stand-in). */
function bindingVariables(binding: ResourceBinding): string[] {
  if (binding.kind === 'queue') return [binding.env, binding.dlqEnv];
  if (binding.kind === 'secretsKey') return [binding.env, LOCAL_SECRETS_KEY_ENV];
  return [binding.env];
}

/** The resource variables a function with this access may read. */
export function grantedVariables(access: FunctionAccess, consumes?: QueueName): Set<string> {
  return new Set(resourceBindings(access, consumes).flatMap(bindingVariables));
}

/** Every resource variable any function could be granted: what the local cloud scopes. */
export function resourceVariables(): Set<string> {
  return grantedVariables({
    tables: tables.map((t) => ({ table: t.name, access: 'readWrite' as const })),
    sendsTo: queues.map((q) => q.name as QueueName),
    startsWorkflow: true,
    usesSecrets: true,
    invokes: internalFunctions.map((f) => f.name),
    deliveryPrincipal: 'assume',
  });
}
