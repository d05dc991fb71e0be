/**
 * The workflow catalog: each state machine's ASL file and, for every `${Variable}` used as a
 * Task `Resource` in it, the handler module that serves it. CDK makes one function per
 * variable and substitutes its ARN; the local runner maps each Task state to the same handler
 * (and refuses to run a definition with a Task it cannot map).
 */

import type { FunctionAccess } from './access';

interface WorkflowTaskDef extends FunctionAccess {
  readonly handler: string;
  readonly timeoutSeconds: number;
}

export interface WorkflowDef {
  readonly name: string;
  readonly description: string;
  /** ASL file (JSONPath, no JSONata, no Assign), relative to the repository root. */
  readonly definition: string;
  /** Substitution variable → handler module (exports `handler`). */
  readonly tasks: Readonly<Record<string, WorkflowTaskDef>>;
}

export const workflows = [
  {
    name: 'integrationLifecycle',
    description:
      'Integration create, edit and delete transitions (creating/editing/deleting → final status).',
    definition: 'infra/workflows/integration-lifecycle.asl.json',
    tasks: {
      // The remote work records each step it carries out on the integration (progress).
      BootstrapFunctionArn: {
        handler: 'functions/workflow/bootstrap.ts',
        timeoutSeconds: 120,
        tables: [{ table: 'integrations', access: 'readWrite' }],
        usesSecrets: true,
      },
      ApplyEditFunctionArn: {
        handler: 'functions/workflow/apply-edit.ts',
        timeoutSeconds: 120,
        tables: [{ table: 'integrations', access: 'readWrite' }],
        usesSecrets: true,
      },
      RepairFunctionArn: {
        handler: 'functions/workflow/repair.ts',
        timeoutSeconds: 120,
        tables: [{ table: 'integrations', access: 'readWrite' }],
        // The check after the repair sends healthCheckResolved when it passes.
        sendsTo: ['notifications'],
        usesSecrets: true,
      },
      CompensateFunctionArn: {
        handler: 'functions/workflow/compensate.ts',
        timeoutSeconds: 120,
        tables: [{ table: 'integrations', access: 'readWrite' }],
        usesSecrets: true,
      },
      TeardownFunctionArn: {
        handler: 'functions/workflow/teardown.ts',
        timeoutSeconds: 120,
        tables: [
          { table: 'integrations', access: 'read' },
          { table: 'transientSecrets', access: 'read' },
        ],
        usesSecrets: true,
      },
      RecordOutcomeFunctionArn: {
        handler: 'functions/workflow/record-outcome.ts',
        timeoutSeconds: 30,
        usesSecrets: true,
        tables: [
          { table: 'integrations', access: 'readWrite' },
          { table: 'integrationClaims', access: 'readWrite' },
          { table: 'transientSecrets', access: 'readWrite' },
        ],
      },
    },
  },
] as const satisfies readonly WorkflowDef[];

export type WorkflowName = (typeof workflows)[number]['name'];

export function workflowEnvVar(name: WorkflowName): string {
  return `STATE_MACHINE_${name.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase()}_ARN`;
}
