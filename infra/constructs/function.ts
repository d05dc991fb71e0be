/**
 * The one function wrapper every Causeway Lambda goes through, and the resource directory that
 * turns a catalog entry's `FunctionAccess` into environment variables and least-privilege
 * grants together.
 *
 * A function never gets an environment variable for a resource it may not touch, nor a grant
 * without the variable that names the resource: both come from the same `FunctionAccess`.
 */
import { posix } from 'node:path';
import { ArnFormat, Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { flattenCfnReference } from 'cdk-nag/lib/utils/flatten-cfn-reference';
import { Construct } from 'constructs';
import type { FunctionAccess } from '../../shared/catalog/access';
import { resourceBindings } from '../../shared/catalog/environment';
import { dlqEnvVar, type QueueName, queueEnvVar } from '../../shared/catalog/queues';
import { type TableName, tableDef } from '../../shared/catalog/tables';
import type { WorkflowName } from '../../shared/catalog/workflows';
import { type StageConfig, stageEnvironment } from '../stages';
import {
  BUNDLE_TARGET,
  ESM_BUILDS,
  ESM_REQUIRE_BANNER,
  type HandlerBundles,
  handlerEntry,
  MODULE_FILES,
  NATIVE_ADDON_LOADER,
  NATIVE_ADDONS,
  RUNTIME_PROVIDED_MODULES,
  repoRoot,
} from './bundles';
import type { DeliveryPrincipal } from './delivery-principal';

/** The stage a construct is built for. */
export interface StageContext {
  readonly name: string;
  readonly config: StageConfig;
}

export function removalPolicy(stage: StageContext): RemovalPolicy {
  return stage.config.removalPolicy === 'retain' ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY;
}

export function logRetention(stage: StageContext): logs.RetentionDays {
  const days = stage.config.logRetentionDays;
  const allowed = Object.values(logs.RetentionDays).filter((v): v is number => typeof v === 'number');
  if (!allowed.includes(days)) {
    throw new Error(
      `stage ${stage.name}: logRetentionDays ${days} is not a CloudWatch Logs retention (${allowed.join(', ')})`,
    );
  }
  return days as logs.RetentionDays;
}

/** The nodejs24.x runtime, whether or not this aws-cdk-lib names it. */
const NODEJS_24 =
  (lambda.Runtime as unknown as Record<string, lambda.Runtime | undefined>).NODEJS_24_X ??
  new lambda.Runtime('nodejs24.x', lambda.RuntimeFamily.NODEJS);

/**
 * Every queue, table, state machine, internal function and the secrets key of one stack, and
 * every function that needs some of them. Constructs register what they create; the stack
 * calls `bindAll()` once everything exists, so construction order never matters (a workflow
 * task may invoke an internal function, a consumer may start a workflow, …).
 */
export class StackResources {
  private readonly tables = new Map<string, dynamodb.ITable>();
  private readonly queues = new Map<string, { queue: sqs.IQueue; deadLetterQueue: sqs.IQueue }>();
  private readonly stateMachines = new Map<string, sfn.StateMachine>();
  private readonly internalFunctions = new Map<string, lambda.IFunction>();
  private key: kms.IKey | undefined;
  /** The webhook delivery principal (ADR 0019): the stack builds it once every function exists. */
  deliveryPrincipal: DeliveryPrincipal | undefined;
  private readonly registered: CausewayFunction[] = [];
  private bound = false;

  addTable(name: string, table: dynamodb.ITable): void {
    this.tables.set(name, table);
  }

  addQueue(name: string, queue: sqs.IQueue, deadLetterQueue: sqs.IQueue): void {
    this.queues.set(name, { queue, deadLetterQueue });
  }

  addStateMachine(name: string, stateMachine: sfn.StateMachine): void {
    this.stateMachines.set(name, stateMachine);
  }

  addInternalFunction(name: string, fn: lambda.IFunction): void {
    this.internalFunctions.set(name, fn);
  }

  setSecretsKey(key: kms.IKey): void {
    this.key = key;
  }

  table(name: string): dynamodb.ITable {
    return found(this.tables.get(name), `table ${name}`);
  }

  queue(name: string): { queue: sqs.IQueue; deadLetterQueue: sqs.IQueue } {
    return found(this.queues.get(name), `queue ${name}`);
  }

  stateMachine(name: string): sfn.StateMachine {
    return found(this.stateMachines.get(name), `state machine ${name}`);
  }

  internalFunction(name: string): lambda.IFunction {
    return found(this.internalFunctions.get(name), `internal function ${name}`);
  }

  secretsKey(): kms.IKey {
    return found(this.key, 'the secrets KMS key');
  }

  register(fn: CausewayFunction): void {
    if (this.bound) fn.bindAccess(this);
    this.registered.push(fn);
  }

  /** Every function of the stack (for alarms). */
  get functions(): readonly CausewayFunction[] {
    return this.registered;
  }

  /** Turns every registered function's access into env vars and grants. */
  bindAll(): void {
    this.bound = true;
    for (const fn of this.registered) fn.bindAccess(this);
  }
}

function found<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`${what} is not part of this stack (is it in the catalog?)`);
  return value;
}

export interface CausewayFunctionProps {
  /** Handler module relative to the repository root; it must exist and export `handler`. */
  readonly handler: string;
  readonly stage: StageContext;
  /** Where the function's access is resolved; the function registers itself here. */
  readonly resources: StackResources;
  /**
   * What the function may touch (tables, queues, workflows, secrets, internal functions).
   * @default - no access to any Causeway resource
   */
  readonly access?: FunctionAccess;
  /**
   * Shared in-process bundles (one esbuild run for the whole app).
   * @default - NodejsFunction's own local esbuild bundling with the same options
   */
  readonly bundles?: HandlerBundles;
  /** @default - the handler path */
  readonly description?: string;
  /** @default 10 */
  readonly timeoutSeconds?: number;
  /** @default 512 */
  readonly memoryMb?: number;
  /** @default - none reserved: the function draws on the account's unreserved concurrency */
  readonly reservedConcurrency?: number;
  /**
   * Extra environment variables (on top of the stage environment and the access variables).
   * @default - none
   */
  readonly environment?: Readonly<Record<string, string>>;
}

/**
 * A Causeway Lambda function: nodejs24.x on arm64, an ESM bundle (createRequire banner,
 * minified, source maps, AWS SDK from the runtime), X-Ray tracing, its own log group with the
 * stage's retention, its own role (no managed policies) and the stage environment.
 */
export class CausewayFunction extends NodejsFunction {
  /** The handler module this function runs. */
  public readonly handlerModule: string;
  /** The function's own execution role (no managed policies). */
  public readonly executionRole: iam.Role;
  /** What the function may touch (its catalog entry's access). */
  public readonly access: FunctionAccess;
  private accessBound = false;

  constructor(scope: Construct, id: string, props: CausewayFunctionProps) {
    const owner = `${scope.node.path}/${id}`;
    const entry = handlerEntry(props.handler, owner);
    const logScope = new Construct(scope, `${id}Support`);
    const logGroup = new logs.LogGroup(logScope, 'Logs', {
      retention: logRetention(props.stage),
      removalPolicy: removalPolicy(props.stage),
    });
    // An own role instead of AWSLambdaBasicExecutionRole: logs may go only to this log group.
    const role = new iam.Role(logScope, 'Role', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: `Execution role of ${props.handler}`,
    });
    logGroup.grantWrite(role);

    const environment = {
      ...stageEnvironment(props.stage.name, props.stage.config),
      POWERTOOLS_SERVICE_NAME: 'causeway',
      NODE_OPTIONS: '--enable-source-maps',
      ...props.environment,
    };
    const common = {
      description: props.description ?? props.handler,
      runtime: NODEJS_24,
      architecture: lambda.Architecture.ARM_64,
      tracing: lambda.Tracing.ACTIVE,
      timeout: Duration.seconds(props.timeoutSeconds ?? 10),
      memorySize: props.memoryMb ?? 512,
      ...(props.reservedConcurrency === undefined
        ? {}
        : { reservedConcurrentExecutions: props.reservedConcurrency }),
      logGroup,
      role,
      environment,
    };
    if (props.bundles) {
      super(scope, id, {
        ...common,
        code: props.bundles.code(props.handler, owner),
        handler: 'index.handler',
      });
    } else {
      super(scope, id, {
        ...common,
        entry,
        handler: 'handler',
        projectRoot: repoRoot,
        depsLockFilePath: `${repoRoot}/package-lock.json`,
        bundling: {
          format: OutputFormat.ESM,
          target: BUNDLE_TARGET,
          mainFields: ['module', 'main'],
          banner: ESM_REQUIRE_BANNER,
          minify: true,
          sourceMap: true,
          sourcesContent: false,
          externalModules: [...RUNTIME_PROVIDED_MODULES, ...NATIVE_ADDONS],
          loader: NATIVE_ADDON_LOADER,
          esbuildArgs: Object.fromEntries(
            Object.entries(ESM_BUILDS).map(([pkg, path]) => [`--alias:${pkg}`, path]),
          ),
          forceDockerBundling: false,
          // Without the shared bundles' metafile to say which modules a bundle holds, every
          // function gets the files a module reads beside itself (`MODULE_FILES`).
          commandHooks: {
            beforeBundling: () => [],
            beforeInstall: () => [],
            afterBundling: (inputDir, outputDir) =>
              Object.entries(MODULE_FILES).flatMap(([module, names]) =>
                names.map(
                  (name) => `cp "${posix.join(inputDir, posix.dirname(module), name)}" "${outputDir}"`,
                ),
              ),
          },
        },
      });
    }
    this.handlerModule = props.handler;
    this.executionRole = role;
    this.access = props.access ?? {};

    acknowledge(role, 'AwsSolutions-IAM5[Resource::*]', [
      'X-Ray tracing: xray:PutTraceSegments and xray:PutTelemetryRecords do not support resource-level',
      'permissions, so AWS documents Resource "*" for them. It is the only "*" resource in the role.',
    ]);
    this.node.addValidation({
      validate: () =>
        this.accessBound ? [] : ['function access was never bound (the stack must call resources.bindAll())'],
    });
    props.resources.register(this);
  }

  /**
   * Env vars + grants for the function's `FunctionAccess`; called once by `StackResources`.
   * The bindings come from `resourceBindings`, the same function the local cloud scopes each
   * invocation's environment with, so the two cannot drift.
   */
  bindAccess(resources: StackResources): void {
    if (this.accessBound) return;
    this.accessBound = true;
    for (const binding of resourceBindings(this.access)) {
      switch (binding.kind) {
        case 'table':
          this.bindTable(resources, binding.name, binding.access, binding.env);
          break;
        case 'queue':
          this.grantQueue(resources, binding.name);
          break;
        case 'workflow':
          this.bindWorkflow(resources, binding.name, binding.env);
          break;
        case 'secretsKey': {
          const key = resources.secretsKey();
          this.addEnvironment(binding.env, key.keyArn);
          key.grant(this, 'kms:GenerateDataKey', 'kms:Decrypt');
          break;
        }
        case 'function': {
          const target = resources.internalFunction(binding.name);
          this.addEnvironment(binding.env, target.functionName);
          // The unqualified ARN only: callers invoke $LATEST by name, never a version or alias.
          this.addToRolePolicy(
            new iam.PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [target.functionArn] }),
          );
          break;
        }
        case 'deliveryPrincipal':
          found(resources.deliveryPrincipal, 'the webhook delivery principal').bind(this, binding);
          break;
      }
    }
  }

  private bindTable(resources: StackResources, name: TableName, access: 'read' | 'readWrite', env: string) {
    const table = resources.table(name);
    this.addEnvironment(env, table.tableName);
    if (access === 'read') table.grantReadData(this);
    else table.grantReadWriteData(this);
    if ((tableDef(name).indexes ?? []).length > 0) {
      acknowledge(this.executionRole, nagWildcard(this, `${table.tableArn}/index/*`), [
        `Grant on the indexes of table ${name}: DynamoDB index ARNs are <table ARN>/index/<name>;`,
        'the wildcard covers only the indexes of this one table.',
      ]);
    }
  }

  private bindWorkflow(resources: StackResources, name: WorkflowName, env: string) {
    const machine = resources.stateMachine(name);
    this.addEnvironment(env, machine.stateMachineArn);
    machine.grantStartExecution(this);
    this.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ['states:ListExecutions'],
        resources: [machine.stateMachineArn],
      }),
    );
    const executions = Stack.of(this).formatArn({
      service: 'states',
      resource: 'execution',
      resourceName: `${machine.stateMachineName}:*`,
      arnFormat: ArnFormat.COLON_RESOURCE_NAME,
    });
    this.addToRolePolicy(
      new iam.PolicyStatement({ actions: ['states:DescribeExecution'], resources: [executions] }),
    );
    acknowledge(this.executionRole, nagWildcard(this, executions), [
      `DescribeExecution on executions of the ${name} state machine: execution ARNs end in a name`,
      'chosen at start time, so they can only be matched as <state machine name>:*.',
    ]);
  }

  /**
   * Makes this function the consumer of a queue: the event source mapping (partial batch
   * responses on), the queue's and DLQ's URLs, and SendMessage on the DLQ only (a consumer may
   * dead-letter a message itself once its own retry schedule is exhausted).
   */
  consume(
    name: string,
    queue: sqs.IQueue,
    deadLetterQueue: sqs.IQueue,
    options: { batchSize: number; maxBatchingWindowSeconds: number },
  ): void {
    this.addEventSource(
      new SqsEventSource(queue, {
        batchSize: options.batchSize,
        ...(options.maxBatchingWindowSeconds > 0
          ? { maxBatchingWindow: Duration.seconds(options.maxBatchingWindowSeconds) }
          : {}),
        reportBatchItemFailures: true,
      }),
    );
    this.addEnvironment(queueEnvVar(name as QueueName), queue.queueUrl);
    this.addEnvironment(dlqEnvVar(name as QueueName), deadLetterQueue.queueUrl);
    deadLetterQueue.grantSendMessages(this);
  }

  /**
   * A queue this function sends to, changes visibility on, or moves to the DLQ of: both URLs
   * and the matching actions on exactly those two queues.
   */
  grantQueue(resources: StackResources, name: string): void {
    const { queue, deadLetterQueue } = resources.queue(name);
    this.addEnvironment(queueEnvVar(name as QueueName), queue.queueUrl);
    this.addEnvironment(dlqEnvVar(name as QueueName), deadLetterQueue.queueUrl);
    queue.grantSendMessages(this);
    queue.grant(this, 'sqs:ChangeMessageVisibility');
    deadLetterQueue.grantSendMessages(this);
  }
}

/** The finding id cdk-nag's IAM5 reports for a wildcard resource (`Resource::<flattened>`). */
export function nagWildcard(scope: Construct, resource: string): string {
  return `AwsSolutions-IAM5[Resource::${flattenCfnReference(Stack.of(scope).resolve(resource))}]`;
}

/** Acknowledges one cdk-nag finding on one construct, with a written reason. */
export function acknowledge(scope: Construct, id: string, reason: string | readonly string[]): void {
  Validations.of(scope).acknowledge({ id, reason: typeof reason === 'string' ? reason : reason.join(' ') });
}
