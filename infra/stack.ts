/**
 * One Causeway stack per deployable stage, composed of one construct per concern, and the CDK
 * app that holds every stage selected from `cdk.json` context.
 */
import {
  App,
  type CfnElement,
  CfnOutput,
  Names,
  Stack,
  type StackProps,
  Tags,
  Validations,
} from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { Construct, type IConstruct } from 'constructs';
import { catalogHandlers } from '../shared/catalog/handlers';
import { Api } from './constructs/api';
import { HandlerBundles } from './constructs/bundles';
import type { CatalogSchedule } from './constructs/catalog-functions';
import { ConsoleHosting } from './constructs/console';
import { Data } from './constructs/data';
import { DeliveryPrincipal } from './constructs/delivery-principal';
import { type CausewayFunction, StackResources, type StageContext } from './constructs/function';
import { IntegrationFunctions } from './constructs/integration-functions';
import { Notifications } from './constructs/notifications';
import { Observability } from './constructs/observability';
import { StreamConsumers } from './constructs/streams';
import { Workflows } from './constructs/workflows';
import {
  API_URL_OUTPUT,
  CONSOLE_BUCKET_OUTPUT,
  CONSOLE_DISTRIBUTION_OUTPUT,
  CONSOLE_URL_OUTPUT,
  DELIVERY_PRINCIPAL_OUTPUT,
  queueOutputName,
  SECRETS_KEY_OUTPUT,
  stackName,
  tableOutputName,
} from './outputs';
import { parseStages, STAGES_CONTEXT_KEY, type Stages } from './stages';

/**
 * Constructs split out of another (construct id → the id of the construct that built their
 * resources before). Their resources keep the logical ids they had there, so deploying the
 * split updates a stack in place instead of replacing functions, roles, log groups, rules
 * and alarms: the platform connector and the reconciler were built by `Notifications`.
 */
const FORMER_SCOPES: Readonly<Record<string, string>> = { IntegrationFunctions: 'Notifications' };

/** A construct's path below its stack, as it was before its top-level construct moved. */
function formerPath(stack: Stack, construct: IConstruct): string[] | undefined {
  const scopes = construct.node.scopes;
  const [first, ...rest] = scopes.slice(scopes.indexOf(stack) + 1).map((s) => s.node.id);
  const former = first === undefined ? undefined : FORMER_SCOPES[first];
  return former === undefined ? undefined : [former, ...rest];
}

/**
 * The logical id CDK gives the element at `path` below a stack: `Names.uniqueId` runs the same
 * algorithm over a construct's path below the app root, so it is asked about a detached tree
 * of that shape.
 */
function logicalIdAt(path: readonly string[]): string {
  let node = new Construct(undefined as unknown as Construct, '');
  for (const id of path) node = new Construct(node, id);
  return Names.uniqueId(node);
}

export interface CausewayStackProps extends StackProps {
  readonly stage: StageContext;
  /** @default - every function bundles itself with NodejsFunction's local esbuild */
  readonly bundles?: HandlerBundles;
}

export class CausewayStack extends Stack {
  public readonly data: Data;
  public readonly notifications: Notifications;
  public readonly integrationFunctions: IntegrationFunctions;
  public readonly workflows: Workflows;
  public readonly api: Api;
  public readonly console: ConsoleHosting;
  /** The role customers' AWS roles trust for webhook deliveries into their accounts (ADR 0019). */
  public readonly deliveryPrincipal: DeliveryPrincipal;
  public readonly observability: Observability;
  public readonly resources: StackResources;
  /** Catalog name → internal function, whichever capability's construct built it. */
  public readonly internalFunctions: ReadonlyMap<string, CausewayFunction>;
  /** Catalog name → scheduled function and its rule, whichever construct built it. */
  public readonly schedules: ReadonlyMap<string, CatalogSchedule>;
  public readonly streams: StreamConsumers;

  constructor(scope: Construct, id: string, props: CausewayStackProps) {
    super(scope, id, props);
    const { stage, bundles } = props;
    const resources = new StackResources();
    this.resources = resources;
    const common = { stage, resources, bundles };

    this.data = new Data(this, 'Data', { stage, resources });
    this.notifications = new Notifications(this, 'Notifications', common);
    this.integrationFunctions = new IntegrationFunctions(this, 'IntegrationFunctions', common);
    this.internalFunctions = new Map([
      ...this.notifications.internalFunctions,
      ...this.integrationFunctions.internalFunctions,
    ]);
    this.schedules = new Map([...this.notifications.schedules, ...this.integrationFunctions.schedules]);
    this.streams = new StreamConsumers(this, 'Streams', common);
    this.workflows = new Workflows(this, 'Workflows', common);
    this.api = new Api(this, 'Api', common);
    this.console = new ConsoleHosting(this, 'Console', { stage, httpApi: this.api.httpApi });
    // Once every function exists: the principal trusts the roles of exactly those whose catalog
    // access assumes it (bindAll then grants them sts:AssumeRole on it).
    this.deliveryPrincipal = new DeliveryPrincipal(this, 'WebhookDeliveryPrincipal', {
      stage,
      trusted: resources.functions.filter((fn) => fn.access.deliveryPrincipal === 'assume'),
    });
    resources.deliveryPrincipal = this.deliveryPrincipal;
    resources.bindAll();

    this.observability = new Observability(this, 'Observability', {
      stage,
      deadLetterQueues: new Map([
        ...[...this.notifications.queues].map(([name, q]) => [name, q.deadLetterQueue] as const),
        ...[...this.streams.consumers].map(([name, c]) => [name, c.failures] as const),
      ]),
      queues: new Map([...this.notifications.queues].map(([name, q]) => [name, q.queue] as const)),
      httpApi: this.api.httpApi,
      httpStage: this.api.stage,
      stateMachines: new Map(
        [...this.workflows.workflows].map(([name, w]) => [name, w.stateMachine] as const),
      ),
      // Keyed by path below the stack (the alarm ids), the former one for a moved function.
      functions: new Map(
        resources.functions.map(
          (fn) => [(formerPath(this, fn) ?? fn.node.path.split('/').slice(1)).join(''), fn] as const,
        ),
      ),
    });

    Tags.of(this).add('service', 'causeway');
    Tags.of(this).add('stage', stage.name);
    // Output names are shared with the CLI (`infra/outputs.ts`), which reads them for --stage.
    new CfnOutput(this, API_URL_OUTPUT, { value: this.api.url, description: 'Invoke URL of the HTTP API' });
    new CfnOutput(this, 'AlarmTopicArn', { value: this.observability.alarmTopic.topicArn });
    new CfnOutput(this, CONSOLE_URL_OUTPUT, { value: this.console.url, description: 'The operator console' });
    // The deploy script (infra/console-publish.ts) uploads console/dist to this bucket after `cdk deploy`.
    new CfnOutput(this, CONSOLE_BUCKET_OUTPUT, {
      value: this.console.bucket.bucketName,
      description: 'Console assets bucket',
    });
    new CfnOutput(this, CONSOLE_DISTRIBUTION_OUTPUT, {
      value: this.console.distribution.distributionId,
      description: 'CloudFront distribution of the console and the API',
    });
    new CfnOutput(this, DELIVERY_PRINCIPAL_OUTPUT, {
      value: this.deliveryPrincipal.role.roleArn,
      description: "The role customers' AWS roles trust for webhook deliveries (fixed name, retained)",
    });
    new CfnOutput(this, SECRETS_KEY_OUTPUT, {
      value: this.data.secretsKey.keyArn,
      description: 'KMS key of the secrets envelope encryption',
    });
    for (const [name, table] of this.data.tables) {
      new CfnOutput(this, tableOutputName(name), {
        value: table.tableName,
        description: `Physical name of the ${name} table`,
      });
    }
    for (const [name, q] of this.notifications.queues) {
      new CfnOutput(this, queueOutputName(name), {
        value: q.queue.queueUrl,
        description: `URL of the ${name} queue`,
      });
    }
  }

  protected override allocateLogicalId(element: CfnElement): string {
    const former = formerPath(this, element);
    return former ? logicalIdAt(former) : super.allocateLogicalId(element);
  }
}

export { stackName };

/** The stages `cdk.json` marks deployable, or the one `-c stage=…` selects. */
export function selectStages(stages: Stages, requested: string | undefined): string[] {
  const deployable = Object.entries(stages)
    .filter(([, config]) => config.deploy)
    .map(([name]) => name);
  if (requested === undefined) return deployable;
  if (!(requested in stages)) {
    throw new Error(`unknown stage "${requested}" (cdk.json defines: ${Object.keys(stages).join(', ')})`);
  }
  if (!deployable.includes(requested)) {
    throw new Error(`stage "${requested}" is not deployable (deploy: false in cdk.json); it is local only`);
  }
  return [requested];
}

export interface CausewayAppOptions {
  /** Context for the app (tests pass cdk.json's context; the CLI passes it through the environment). */
  readonly context?: Record<string, unknown>;
  /** @default the CLI's output directory, or a temporary one */
  readonly outdir?: string;
  /** @default `-c stage=…` from the context, else every deployable stage */
  readonly stage?: string;
  /**
   * Bundle every handler once, in-process, and share the assets between stages.
   * @default true
   */
  readonly sharedBundles?: boolean;
  /** @default a temporary directory removed when the process exits */
  readonly bundlesDir?: string;
}

export interface CausewayApp {
  readonly app: App;
  readonly stacks: readonly CausewayStack[];
  readonly nag: AwsSolutionsChecks;
}

/** Builds the app: one stack per selected stage, cdk-nag AwsSolutions as a validation plugin. */
export function createCausewayApp(options: CausewayAppOptions = {}): CausewayApp {
  const app = new App({
    ...(options.context ? { context: options.context } : {}),
    ...(options.outdir ? { outdir: options.outdir } : {}),
  });
  const stages = parseStages(app.node.tryGetContext(STAGES_CONTEXT_KEY));
  const requested = options.stage ?? (app.node.tryGetContext('stage') as string | undefined);
  const selected = selectStages(stages, requested);
  const bundles =
    options.sharedBundles === false
      ? undefined
      : new HandlerBundles(options.bundlesDir ? { outDir: options.bundlesDir } : {});
  bundles?.prepare(
    catalogHandlers().map((h) => h.handler),
    'catalog',
  );
  const env =
    process.env.CDK_DEFAULT_ACCOUNT && process.env.CDK_DEFAULT_REGION
      ? { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION }
      : undefined;
  const stacks = selected.map((name) => {
    const config = stages[name];
    if (!config) throw new Error(`unknown stage ${name}`);
    return new CausewayStack(app, stackName(name), {
      stage: { name, config },
      bundles,
      description: `Causeway (${name}): integrations and webhooks service`,
      ...(env ? { env } : {}),
    });
  });
  const nag = new AwsSolutionsChecks(app);
  Validations.of(app).addPlugins(nag);
  return { app, stacks, nag };
}
