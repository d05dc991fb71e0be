/**
 * Step Functions: one Standard state machine per entry of the workflow catalog, defined by its
 * ASL file (inlined with `DefinitionBody.fromString`, no S3 asset) with every `${Variable}`
 * substituted by the ARN of the task function the catalog maps it to.
 */
import * as iam from 'aws-cdk-lib/aws-iam';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { type WorkflowDef, workflows } from '../../shared/catalog/workflows';
import { type AslDefinition, mappingProblems, readDefinitionText } from '../workflows/definition';
import type { HandlerBundles } from './bundles';
import {
  acknowledge,
  CausewayFunction,
  logRetention,
  removalPolicy,
  type StackResources,
  type StageContext,
} from './function';

export interface WorkflowsProps {
  readonly stage: StageContext;
  readonly resources: StackResources;
  /** @default - each function bundles itself */
  readonly bundles?: HandlerBundles;
  /** @default every entry of the workflow catalog */
  readonly workflows?: readonly WorkflowDef[];
  /**
   * Log state input and output with every event. Off by default: task results may describe
   * remote systems, and execution history already keeps them for the retention period.
   * @default false
   */
  readonly includeExecutionData?: boolean;
}

export interface CatalogWorkflow {
  readonly stateMachine: sfn.StateMachine;
  readonly logGroup: logs.LogGroup;
  /** Substitution variable → task function. */
  readonly tasks: ReadonlyMap<string, CausewayFunction>;
}

const pascal = (name: string) => name.charAt(0).toUpperCase() + name.slice(1);

export class Workflows extends Construct {
  /** Catalog name → state machine, its log group and task functions. */
  public readonly workflows: ReadonlyMap<string, CatalogWorkflow>;

  constructor(scope: Construct, id: string, props: WorkflowsProps) {
    super(scope, id);
    const created = new Map<string, CatalogWorkflow>();
    for (const def of props.workflows ?? (workflows as readonly WorkflowDef[])) {
      const name = pascal(def.name);
      const text = readDefinitionText(def);
      const problems = mappingProblems(def, JSON.parse(text) as AslDefinition);
      if (problems.length > 0)
        throw new Error(`workflow ${def.name} (${def.definition}): ${problems.join('; ')}`);

      const tasks = new Map<string, CausewayFunction>();
      for (const [variable, task] of Object.entries(def.tasks)) {
        const fn = new CausewayFunction(this, `${name}${variable.replace(/Arn$/, '')}`, {
          stage: props.stage,
          resources: props.resources,
          bundles: props.bundles,
          handler: task.handler,
          description: `${def.name} workflow task ${variable}`,
          access: task,
          timeoutSeconds: task.timeoutSeconds,
        });
        tasks.set(variable, fn);
      }

      const logGroup = new logs.LogGroup(this, `${name}Logs`, {
        // The vendedlogs prefix keeps the CloudWatch Logs resource policy small (AWS guidance).
        logGroupName: `/aws/vendedlogs/states/causeway-${props.stage.name}-${def.name}`,
        retention: logRetention(props.stage),
        removalPolicy: removalPolicy(props.stage),
      });
      const stateMachine = new sfn.StateMachine(this, `${name}StateMachine`, {
        comment: def.description,
        stateMachineType: sfn.StateMachineType.STANDARD,
        definitionBody: sfn.DefinitionBody.fromString(text),
        definitionSubstitutions: Object.fromEntries(
          [...tasks].map(([variable, fn]) => [variable, fn.functionArn]),
        ),
        logs: {
          destination: logGroup,
          level: sfn.LogLevel.ALL,
          includeExecutionData: props.includeExecutionData ?? false,
        },
        tracingEnabled: true,
        removalPolicy: removalPolicy(props.stage),
      });
      // The definition names the functions by unqualified ARN, so the role needs exactly those.
      stateMachine.addToRolePolicy(
        new iam.PolicyStatement({
          actions: ['lambda:InvokeFunction'],
          resources: [...tasks.values()].map((fn) => fn.functionArn),
        }),
      );
      acknowledge(stateMachine.role, 'AwsSolutions-IAM5[Resource::*]', [
        'Step Functions logging and tracing: the CloudWatch Logs delivery actions (logs:CreateLogDelivery,',
        'logs:DescribeResourcePolicies, …) and xray:PutTraceSegments do not support resource-level',
        'permissions. Lambda invocation is limited to the listed task functions.',
      ]);
      props.resources.addStateMachine(def.name, stateMachine);
      created.set(def.name, { stateMachine, logGroup, tasks });
    }
    this.workflows = created;
  }
}
