/**
 * Template assertions on the synthesized stacks. Every expectation is derived from the
 * catalogs, so adding a route, table, queue, workflow task or function keeps this file right.
 * Over 400 lines: one synthesis per stage shared by every assertion (synthesis is the slow part),
 * the cdk-nag checks (nag-checks.ts) included.
 */
import { type CfnElement, Duration } from 'aws-cdk-lib';
import { Match } from 'aws-cdk-lib/assertions';
import { Schedule } from 'aws-cdk-lib/aws-events';
import type { CfnRole } from 'aws-cdk-lib/aws-iam';
import type { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import { beforeAll, describe, expect, it } from 'vitest';
import type { CausewayFunction } from '../../infra/constructs/function';
import {
  API_URL_OUTPUT,
  DELIVERY_PRINCIPAL_OUTPUT,
  queueOutputName,
  SECRETS_KEY_OUTPUT,
  tableOutputName,
} from '../../infra/outputs';
import type { CausewayStack } from '../../infra/stack';
import { stageEnvironment } from '../../infra/stages';
import { DELIVERY_PRINCIPAL_ENV, type FunctionAccess } from '../../shared/catalog/access';
import { grantedVariables, LOCAL_SECRETS_KEY_ENV, resourceVariables } from '../../shared/catalog/environment';
import {
  functionEnvVar,
  type InternalFunctionDef,
  internalFunctions,
  type ScheduleDef,
  schedules,
} from '../../shared/catalog/functions';
import { AUTHORIZER_ACCESS } from '../../shared/catalog/handlers';
import {
  AUTH_DENIAL_REASONS,
  metrics as catalogMetrics,
  DELIVERY_OUTCOMES,
  METRICS_NAMESPACE,
  METRICS_SERVICE,
} from '../../shared/catalog/metrics';
import {
  dlqEnvVar,
  type QueueDef,
  type QueueName,
  queueEnvVar,
  queues,
  visibilityTimeoutSeconds,
} from '../../shared/catalog/queues';
import { routeAccess } from '../../shared/catalog/route-access';
import { type RouteDef, routeKey, routes } from '../../shared/catalog/routes';
import { type StreamConsumerDef, streamConsumers } from '../../shared/catalog/streams';
import { type TableDef, tableEnvVar, tables } from '../../shared/catalog/tables';
import { type WorkflowDef, workflows } from '../../shared/catalog/workflows';
import { nagChecks } from './nag-checks';
import { type SynthesizedApp, synthesizeApp } from './synth';

const routeList = routes as readonly RouteDef[];
const tableList = tables as readonly TableDef[];
const queueList = queues as readonly QueueDef[];
const workflowList = workflows as readonly WorkflowDef[];
const internalList = internalFunctions as readonly InternalFunctionDef[];
const scheduleList = schedules as readonly ScheduleDef[];
const streamList = streamConsumers as readonly StreamConsumerDef[];
const taskCount = workflowList.reduce((n, w) => n + Object.keys(w.tasks).length, 0);
/** Routes + authorizer + $default + consumers + workflow tasks + internal + scheduled + stream functions. */
const expectedFunctions =
  routeList.length +
  2 +
  queueList.length +
  taskCount +
  internalList.length +
  scheduleList.length +
  streamList.length;

type Resource = { Type: string; Properties: Record<string, unknown>; DeletionPolicy?: string };

let synth: SynthesizedApp;
// A hang guard of its own (300 s), as bundles.test.ts has: the file takes 19 s alone (the
// synthesis most of it), ~150 s in a full run on two cores, and once passed the tier's 180 s
// there (2026-11-28, 4091ca0, a run 885 s long).
beforeAll(() => {
  synth = synthesizeApp();
}, 300_000);

nagChecks(() => synth);

function resources(stage: string, type: string): [string, Resource][] {
  const all = synth.template(stage).toJSON().Resources as Record<string, Resource>;
  return Object.entries(all).filter(([, r]) => r.Type === type);
}

/** The alarms, in the stage's nested alarm stack (ADR 0022). */
function alarmResources(stage: string): [string, Resource][] {
  const all = synth.alarmsTemplate(stage).toJSON().Resources as Record<string, Resource>;
  return Object.entries(all).filter(([, r]) => r.Type === 'AWS::CloudWatch::Alarm');
}

/**
 * The nested alarm stack's parameter that carries `value` from the stage's stack (CDK passes a
 * parent's attribute into a nested stack as a parameter).
 */
function alarmStackParameter(stage: string, value: unknown): string {
  const [[, nested] = ['', undefined]] = resources(stage, 'AWS::CloudFormation::Stack');
  const parameters = (nested?.Properties.Parameters ?? {}) as Record<string, unknown>;
  const found = Object.entries(parameters).find(([, v]) => JSON.stringify(v) === JSON.stringify(value));
  if (!found) throw new Error(`no parameter of the alarm stack carries ${JSON.stringify(value)}`);
  return found[0];
}

function logicalId(stack: CausewayStack, element: unknown): string {
  return stack.getLogicalId(element as CfnElement);
}

function functionEnv(stage: string, fn: CausewayFunction): Record<string, unknown> {
  const stack = synth.stack(stage);
  const id = logicalId(stack, fn.node.defaultChild as CfnFunction);
  const resource = (synth.template(stage).toJSON().Resources as Record<string, Resource>)[id];
  const env = resource?.Properties.Environment as { Variables: Record<string, unknown> } | undefined;
  return env?.Variables ?? {};
}

function functionActions(stage: string, fn: CausewayFunction): Set<string> {
  const stack = synth.stack(stage);
  const roleId = logicalId(stack, fn.executionRole.node.defaultChild as CfnRole);
  const actions = new Set<string>();
  for (const [, policy] of resources(stage, 'AWS::IAM::Policy')) {
    const roles = policy.Properties.Roles as { Ref: string }[];
    if (!roles.some((r) => r.Ref === roleId)) continue;
    const doc = policy.Properties.PolicyDocument as { Statement: { Action: string | string[] }[] };
    for (const statement of doc.Statement) {
      for (const action of [statement.Action].flat()) actions.add(action);
    }
  }
  return actions;
}

/** Env vars and grants both follow the catalog entry's access, and nothing more. */
function expectAccess(
  stage: string,
  fn: CausewayFunction,
  access: FunctionAccess,
  ownQueue?: QueueName,
  /** A stream consumer reports a batch that keeps failing to its failure queue. */
  failureQueue = false,
) {
  const env = functionEnv(stage, fn);
  const config = synth.config(stage);
  for (const [name, value] of Object.entries(stageEnvironment(stage, config))) expect(env[name]).toBe(value);

  const tableVars = Object.keys(env).filter((k) => k.startsWith('TABLE_'));
  expect(tableVars.sort()).toEqual(
    [...new Set((access.tables ?? []).map((t) => tableEnvVar(t.table)))].sort(),
  );
  const queueNames = [...(access.sendsTo ?? []), ...(ownQueue ? [ownQueue] : [])];
  const queueVars = Object.keys(env).filter((k) => k.startsWith('QUEUE_'));
  expect(queueVars.sort()).toEqual(
    [...new Set(queueNames.flatMap((q) => [queueEnvVar(q), dlqEnvVar(q)]))].sort(),
  );
  expect('SECRETS_KMS_KEY_ID' in env).toBe(access.usesSecrets === true);
  expect(Object.keys(env).some((k) => k.startsWith('STATE_MACHINE_'))).toBe(access.startsWorkflow === true);
  const functionVars = Object.keys(env).filter((k) => k.startsWith('FUNCTION_'));
  expect(functionVars.sort()).toEqual([...new Set((access.invokes ?? []).map(functionEnvVar))].sort());
  expect(DELIVERY_PRINCIPAL_ENV in env).toBe(access.deliveryPrincipal !== undefined);
  // The same bindings the local cloud scopes each invocation with (shared/catalog/environment.ts).
  const governed = resourceVariables();
  expect(
    Object.keys(env)
      .filter((k) => governed.has(k))
      .sort(),
  ).toEqual([...grantedVariables(access, ownQueue)].filter((k) => k !== LOCAL_SECRETS_KEY_ENV).sort());

  const actions = functionActions(stage, fn);
  expect(actions.has('dynamodb:PutItem')).toBe((access.tables ?? []).some((t) => t.access === 'readWrite'));
  expect(actions.has('dynamodb:GetItem')).toBe((access.tables ?? []).length > 0);
  expect(actions.has('kms:GenerateDataKey')).toBe(access.usesSecrets === true);
  expect(actions.has('states:StartExecution')).toBe(access.startsWorkflow === true);
  expect(actions.has('lambda:InvokeFunction')).toBe((access.invokes ?? []).length > 0);
  expect(actions.has('sqs:SendMessage')).toBe(queueNames.length > 0 || failureQueue);
  expect(actions.has('sts:AssumeRole')).toBe(access.deliveryPrincipal === 'assume');
}

describe.each(['dev', 'prod'])('stack Causeway-%s', (stage) => {
  it('has one Lambda per route, the authorizer, $default, consumers, workflow tasks, internal and scheduled functions', () => {
    synth.template(stage).resourceCountIs('AWS::Lambda::Function', expectedFunctions);
    expect(synth.stack(stage).resources.functions).toHaveLength(expectedFunctions);
    expect(synth.stack(stage).api.routeFunctions.size).toBe(routeList.length);
  });

  it('runs every function on nodejs24.x, arm64, with X-Ray tracing, its own log group and the stage retention', () => {
    const fns = resources(stage, 'AWS::Lambda::Function');
    expect(fns.length).toBeGreaterThan(0);
    for (const [, fn] of fns) {
      expect(fn.Properties).toMatchObject({
        Runtime: 'nodejs24.x',
        Architectures: ['arm64'],
        TracingConfig: { Mode: 'Active' },
        Handler: 'index.handler',
        LoggingConfig: { LogGroup: { Ref: expect.any(String) } },
      });
    }
    const retention = synth.config(stage).logRetentionDays;
    for (const [, group] of resources(stage, 'AWS::Logs::LogGroup')) {
      expect(group.Properties.RetentionInDays).toBe(retention);
    }
  });

  it('turns every catalog entry’s access into matching env vars and grants', () => {
    const stack = synth.stack(stage);
    expectAccess(stage, stack.api.authorizerFunction, AUTHORIZER_ACCESS);
    expectAccess(stage, stack.api.notFoundFunction, {});
    for (const route of routeList) {
      const fn = stack.api.routeFunctions.get(routeKey(route));
      expect(fn, routeKey(route)).toBeDefined();
      if (fn) expectAccess(stage, fn, routeAccess(route));
    }
    for (const def of queueList) {
      const consumer = stack.notifications.queues.get(def.name)?.consumer;
      expect(consumer, def.name).toBeDefined();
      if (consumer) expectAccess(stage, consumer, def.consumer, def.name as QueueName);
    }
    for (const def of workflowList) {
      for (const [variable, task] of Object.entries(def.tasks)) {
        const fn = stack.workflows.workflows.get(def.name)?.tasks.get(variable);
        expect(fn, variable).toBeDefined();
        if (fn) expectAccess(stage, fn, task);
      }
    }
    for (const def of internalList) {
      const fn = stack.internalFunctions.get(def.name);
      expect(fn, def.name).toBeDefined();
      if (fn) expectAccess(stage, fn, def);
    }
    for (const def of scheduleList) {
      const fn = stack.schedules.get(def.name)?.fn;
      expect(fn, def.name).toBeDefined();
      if (fn) expectAccess(stage, fn, def);
    }
    for (const def of streamList) {
      const fn = stack.streams.consumers.get(def.name)?.consumer;
      expect(fn, def.name).toBeDefined();
      if (fn) {
        expectAccess(stage, fn, def, undefined, true);
        expect(functionActions(stage, fn).has('dynamodb:GetRecords')).toBe(true);
      }
    }
  });

  it('serves data sources (ADR 0016): a table streaming new images to its notices consumer, four routes, the check reads it', () => {
    const stack = synth.stack(stage);
    synth.template(stage).hasResourceProperties('AWS::DynamoDB::Table', {
      KeySchema: [{ AttributeName: 'key', KeyType: 'HASH' }],
      StreamSpecification: { StreamViewType: 'NEW_IMAGE' },
      TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
      GlobalSecondaryIndexes: Match.arrayWith([
        Match.objectLike({ IndexName: 'byIntegration' }),
        Match.objectLike({ IndexName: 'byKind' }),
      ]),
    });
    const notices = stack.streams.consumers.get('dataSourceNotices')?.consumer;
    if (!notices) throw new Error('no dataSourceNotices consumer');
    expect(functionEnv(stage, notices)).toHaveProperty(queueEnvVar('notifications'));
    expect(functionActions(stage, notices).has('dynamodb:GetRecords')).toBe(true);
    const create = stack.api.routeFunctions.get('POST /data-sources');
    if (!create) throw new Error('no POST /data-sources function');
    expect(functionActions(stage, create).has('lambda:InvokeFunction')).toBe(true);
    for (const key of ['GET /data-sources', 'GET /data-sources/{id}', 'DELETE /data-sources/{id}'])
      expect(stack.api.routeFunctions.get(key), key).toBeDefined();
    const checks = stack.notifications.queues.get('integrationChecks')?.consumer;
    if (!checks) throw new Error('no integrationChecks consumer');
    expect(functionEnv(stage, checks)).toHaveProperty(tableEnvVar('dataSources'));
  });

  it('routes every row of the route table, with the authorizer on every non-public route', () => {
    const template = synth.template(stage);
    template.resourceCountIs('AWS::ApiGatewayV2::Route', routeList.length + 1);
    for (const route of routeList) {
      template.hasResourceProperties('AWS::ApiGatewayV2::Route', {
        RouteKey: routeKey(route),
        AuthorizationType: route.auth === 'public' ? 'NONE' : 'CUSTOM',
      });
    }
    template.hasResourceProperties('AWS::ApiGatewayV2::Route', {
      RouteKey: '$default',
      AuthorizationType: 'NONE',
    });
    template.hasResourceProperties('AWS::ApiGatewayV2::Authorizer', {
      AuthorizerType: 'REQUEST',
      EnableSimpleResponses: true,
      AuthorizerPayloadFormatVersion: '2.0',
      IdentitySource: ['$request.header.Authorization'],
      AuthorizerResultTtlInSeconds: synth.config(stage).authorizerCacheSeconds,
    });
  });

  it('throttles and access-logs the API stage from the stage config', () => {
    const { throttling } = synth.config(stage);
    synth.template(stage).hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      StageName: '$default',
      AutoDeploy: true,
      DefaultRouteSettings: {
        ThrottlingRateLimit: throttling.rateLimit,
        ThrottlingBurstLimit: throttling.burstLimit,
      },
      AccessLogSettings: { DestinationArn: Match.anyValue(), Format: Match.stringLikeRegexp('requestId') },
    });
  });

  it('gives every queue a DLQ redrive, SSE and an SSL-only policy; consumers report partial batch failures', () => {
    const template = synth.template(stage);
    // Each queue and its DLQ, and each stream consumer's failure queue.
    template.resourceCountIs('AWS::SQS::Queue', queueList.length * 2 + streamList.length);
    for (const [, queue] of resources(stage, 'AWS::SQS::Queue')) {
      expect(queue.Properties.SqsManagedSseEnabled).toBe(true);
    }
    for (const def of queueList) {
      if (def.maxReceiveCount !== undefined)
        template.hasResourceProperties('AWS::SQS::Queue', {
          RedrivePolicy: { maxReceiveCount: def.maxReceiveCount, deadLetterTargetArn: Match.anyValue() },
          MessageRetentionPeriod: def.retentionSeconds,
          VisibilityTimeout: visibilityTimeoutSeconds(def),
        });
      // A FIFO queue whose consumer dead-letters by itself (ADR 0020): no redrive, high throughput.
      else
        template.hasResourceProperties('AWS::SQS::Queue', {
          FifoQueue: true,
          DeduplicationScope: 'messageGroup',
          FifoThroughputLimit: 'perMessageGroupId',
          RedrivePolicy: Match.absent(),
          MessageRetentionPeriod: def.retentionSeconds,
          VisibilityTimeout: visibilityTimeoutSeconds(def),
        });
      template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
        BatchSize: def.consumer.batchSize,
        FunctionResponseTypes: ['ReportBatchItemFailures'],
        ...(def.consumer.maxBatchingWindowSeconds > 0
          ? { MaximumBatchingWindowInSeconds: def.consumer.maxBatchingWindowSeconds }
          : {}),
      });
    }
    for (const def of streamList) {
      template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
        BatchSize: def.batchSize,
        MaximumBatchingWindowInSeconds: def.maxBatchingWindowSeconds,
        StartingPosition: 'TRIM_HORIZON',
        FunctionResponseTypes: ['ReportBatchItemFailures'],
        DestinationConfig: { OnFailure: { Destination: Match.anyValue() } },
      });
    }
    template.resourceCountIs('AWS::Lambda::EventSourceMapping', queueList.length + streamList.length);
    const policies = resources(stage, 'AWS::SQS::QueuePolicy');
    const queueIds = resources(stage, 'AWS::SQS::Queue').map(([id]) => id);
    const covered = new Set<string>();
    for (const [, policy] of policies) {
      const doc = policy.Properties.PolicyDocument as { Statement: Record<string, unknown>[] };
      expect(doc.Statement).toContainEqual(
        expect.objectContaining({
          Effect: 'Deny',
          Condition: { Bool: { 'aws:SecureTransport': 'false' } },
        }),
      );
      for (const q of policy.Properties.Queues as { Ref: string }[]) covered.add(q.Ref);
    }
    expect([...covered].sort()).toEqual([...queueIds].sort());
  });

  it('creates every table on demand with PITR, KMS SSE, TTL, indexes and the stage removal policy', () => {
    const template = synth.template(stage);
    template.resourceCountIs('AWS::DynamoDB::Table', tableList.length);
    const retain = synth.config(stage).removalPolicy === 'retain';
    for (const [, table] of resources(stage, 'AWS::DynamoDB::Table')) {
      expect(table.Properties).toMatchObject({
        BillingMode: 'PAY_PER_REQUEST',
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        // SSEEnabled without a key id: KMS with the AWS managed key (aws/dynamodb).
        SSESpecification: { SSEEnabled: true },
      });
      expect(table.DeletionPolicy).toBe(retain ? 'Retain' : 'Delete');
    }
    for (const def of tableList) {
      template.hasResourceProperties('AWS::DynamoDB::Table', {
        KeySchema: Match.arrayWith([{ AttributeName: def.partitionKey.name, KeyType: 'HASH' }]),
        ...(def.ttlAttribute
          ? { TimeToLiveSpecification: { AttributeName: def.ttlAttribute, Enabled: true } }
          : {}),
        ...(def.stream ? { StreamSpecification: { StreamViewType: def.stream } } : {}),
        ...(def.indexes?.length
          ? {
              GlobalSecondaryIndexes: Match.arrayWith(
                def.indexes.map((index) => Match.objectLike({ IndexName: index.name })),
              ),
            }
          : {}),
      });
    }
  });

  it('runs every workflow as a Standard state machine with ALL logging, tracing and its task ARNs substituted', () => {
    const template = synth.template(stage);
    template.resourceCountIs('AWS::StepFunctions::StateMachine', workflowList.length);
    for (const def of workflowList) {
      template.hasResourceProperties('AWS::StepFunctions::StateMachine', {
        StateMachineType: 'STANDARD',
        TracingConfiguration: { Enabled: true },
        LoggingConfiguration: {
          Level: 'ALL',
          Destinations: [{ CloudWatchLogsLogGroup: { LogGroupArn: Match.anyValue() } }],
        },
        DefinitionSubstitutions: Object.fromEntries(
          Object.keys(def.tasks).map((variable) => [
            variable,
            Match.objectLike({ 'Fn::GetAtt': Match.anyValue() }),
          ]),
        ),
      });
    }
  });

  it('keeps the secrets key rotating and schedules every scheduled function', () => {
    const template = synth.template(stage);
    for (const [, key] of resources(stage, 'AWS::KMS::Key'))
      expect(key.Properties.EnableKeyRotation).toBe(true);
    template.resourceCountIs('AWS::Events::Rule', scheduleList.length);
    const config = synth.config(stage);
    for (const def of scheduleList) {
      // A schedule with a stage setting runs at the stage's rate (the periodic integration checks).
      const minutes = def.rateStageSetting ? config[def.rateStageSetting] : def.rateMinutes;
      // As EventBridge spells it (CDK writes whole hours as hours).
      template.hasResourceProperties('AWS::Events::Rule', {
        ScheduleExpression: Schedule.rate(Duration.minutes(minutes)).expressionString,
      });
    }
    // Hourly in every deployed stage (issue 21).
    expect(config.integrationCheckMinutes).toBe(60);
  });

  it('builds the integration functions in their own construct, keeping the logical ids a deployed stack has', () => {
    const stack = synth.stack(stage);
    // The ids these resources had when the Notifications construct built them: a deploy of the
    // split updates them in place.
    const formerIds = {
      platformConnector: 'NotificationsPlatformConnectorFunctionF4141CA9',
      reconcileIntegrations: 'NotificationsReconcileIntegrationsScheduled6D0AE2F3',
    };
    const connector = stack.integrationFunctions.internalFunctions.get('platformConnector');
    const reconciler = stack.integrationFunctions.schedules.get('reconcileIntegrations')?.fn;
    expect(connector?.node.path).toBe(`${stack.stackName}/IntegrationFunctions/PlatformConnectorFunction`);
    expect(logicalId(stack, connector?.node.defaultChild)).toBe(formerIds.platformConnector);
    expect(logicalId(stack, reconciler?.node.defaultChild)).toBe(formerIds.reconcileIntegrations);
    const ofCapability = (defs: readonly { name: string; capability: string }[], c: string) =>
      defs.filter((d) => d.capability === c).map((d) => d.name);
    expect([...stack.notifications.internalFunctions.keys()]).toEqual(ofCapability(internalList, 'webhooks'));
    expect([...stack.notifications.schedules.keys()]).toEqual(ofCapability(scheduleList, 'webhooks'));
    expect([...stack.integrationFunctions.internalFunctions.keys()]).toEqual(
      ofCapability(internalList, 'integrations'),
    );
    expect([...stack.integrationFunctions.schedules.keys()]).toEqual(
      ofCapability(scheduleList, 'integrations'),
    );
  });

  it('reserves the concurrency the function catalog declares (the webhook sender: issue 24, finding 6)', () => {
    const stack = synth.stack(stage);
    const declared = internalList.filter((d) => d.reservedConcurrency !== undefined);
    expect(declared.map((d) => d.name)).toContain('webhookSender');
    for (const def of declared) {
      const fn = stack.internalFunctions.get(def.name);
      const id = logicalId(stack, fn?.node.defaultChild);
      const resource = (synth.template(stage).toJSON().Resources as Record<string, Resource>)[id];
      expect(resource?.Properties.ReservedConcurrentExecutions, def.name).toBe(def.reservedConcurrency);
    }
    const reserved = resources(stage, 'AWS::Lambda::Function').filter(
      ([, r]) => r.Properties.ReservedConcurrentExecutions !== undefined,
    );
    expect(reserved).toHaveLength(declared.length);
  });

  it('has one retained, fixed-name webhook delivery principal that only the functions reaching customers assume (ADR 0019)', () => {
    const stack = synth.stack(stage);
    const all = synth.template(stage).toJSON().Resources as Record<string, Resource>;
    const principalId = logicalId(stack, stack.deliveryPrincipal.role.node.defaultChild);
    const role = all[principalId] as Resource & { UpdateReplacePolicy?: string };
    expect(role.Type).toBe('AWS::IAM::Role');
    expect(role.Properties.RoleName).toBe(`causeway-${stage}-webhook-delivery`);
    expect(role.DeletionPolicy).toBe('Retain');
    expect(role.UpdateReplacePolicy).toBe('Retain');
    const principalArn = { 'Fn::GetAtt': [principalId, 'Arn'] };
    synth.template(stage).hasOutput(DELIVERY_PRINCIPAL_OUTPUT, { Value: principalArn });

    // The functions that reach customers: deliveries (unordered and ordered), test sends and
    // manual retries (the sender), and create and PATCH (the trust check), as the catalog says,
    // and no other.
    const reaching = [
      stack.notifications.queues.get('deliveries')?.consumer,
      stack.notifications.queues.get('deliveriesOrdered')?.consumer,
      stack.internalFunctions.get('webhookSender'),
      stack.api.routeFunctions.get('POST /webhooks'),
      stack.api.routeFunctions.get('PATCH /webhooks/{id}'),
    ];
    const assuming = stack.resources.functions.filter((fn) => fn.access.deliveryPrincipal === 'assume');
    expect(new Set(assuming)).toEqual(new Set(reaching));

    // Trusted: exactly their roles, by ARN; never an account root.
    const trust = (role.Properties.AssumeRolePolicyDocument as { Statement: Record<string, unknown>[] })
      .Statement;
    expect(trust).toHaveLength(1);
    const [statement = {}] = trust;
    expect(statement).toMatchObject({ Effect: 'Allow', Action: 'sts:AssumeRole' });
    expect(Object.keys(statement.Principal as object)).toEqual(['AWS']);
    const trusted = [(statement.Principal as { AWS: unknown }).AWS].flat();
    const roleArn = (fn: CausewayFunction | undefined) => ({
      'Fn::GetAtt': [logicalId(stack, fn?.executionRole.node.defaultChild), 'Arn'],
    });
    expect(trusted).toHaveLength(reaching.length);
    expect(trusted).toEqual(expect.arrayContaining(reaching.map(roleArn)));
    expect(JSON.stringify(trust)).not.toMatch(/root/);

    // Its only permission: other accounts' roles, and a Deny on the stage account's own.
    const account = stack.resolve(stack.account);
    const partition = { Ref: 'AWS::Partition' };
    expect(role.Properties.ManagedPolicyArns).toBeUndefined();
    expect(role.Properties.Policies).toEqual([
      {
        PolicyName: 'AssumeCustomerRoles',
        PolicyDocument: {
          Version: '2012-10-17',
          Statement: [
            {
              Sid: 'OtherAccountsRoles',
              Effect: 'Allow',
              Action: 'sts:AssumeRole',
              Resource: { 'Fn::Join': ['', ['arn:', partition, ':iam::*:role/*']] },
              Condition: { StringNotEquals: { 'aws:ResourceAccount': account } },
            },
            {
              Sid: 'NeverOwnAccountsRoles',
              Effect: 'Deny',
              Action: 'sts:AssumeRole',
              Resource: { 'Fn::Join': ['', ['arn:', partition, ':iam::', account, ':role/*']] },
            },
          ],
        },
      },
    ]);
    for (const [, policy] of resources(stage, 'AWS::IAM::Policy'))
      expect(policy.Properties.Roles).not.toContainEqual({ Ref: principalId });

    // Each of those functions may assume it (and only it: no other sts:AssumeRole), and has its ARN.
    const assumeStatements = (fn: CausewayFunction) => {
      const roleId = logicalId(stack, fn.executionRole.node.defaultChild);
      return resources(stage, 'AWS::IAM::Policy')
        .filter(([, p]) => (p.Properties.Roles as { Ref: string }[]).some((r) => r.Ref === roleId))
        .flatMap(
          ([, p]) => (p.Properties.PolicyDocument as { Statement: Record<string, unknown>[] }).Statement,
        )
        .filter((st) => [st.Action].flat().includes('sts:AssumeRole'));
    };
    for (const fn of assuming) {
      expect(functionEnv(stage, fn)[DELIVERY_PRINCIPAL_ENV]).toEqual(principalArn);
      expect(assumeStatements(fn)).toEqual([
        { Effect: 'Allow', Action: 'sts:AssumeRole', Resource: principalArn },
      ]);
    }
    // GET /webhooks/aws-trust names it, and may not assume it.
    const trustRoute = stack.api.routeFunctions.get('GET /webhooks/aws-trust');
    if (!trustRoute) throw new Error('no GET /webhooks/aws-trust function');
    expect(functionEnv(stage, trustRoute)[DELIVERY_PRINCIPAL_ENV]).toEqual(principalArn);
    expect(assumeStatements(trustRoute)).toEqual([]);
    // Create and PATCH check a destination's trust with the owner's ExternalId: they read the
    // ExternalIds (never write them; only GET /webhooks/aws-trust makes one).
    for (const key of ['POST /webhooks', 'PATCH /webhooks/{id}']) {
      const route = routeList.find((r) => routeKey(r) === key);
      if (!route) throw new Error(`no ${key} route`);
      expect(routeAccess(route).tables).toContainEqual({ table: 'awsExternalIds', access: 'read' });
      expect(routeAccess(route).tables).not.toContainEqual({ table: 'awsExternalIds', access: 'readWrite' });
      const fn = stack.api.routeFunctions.get(key);
      if (!fn) throw new Error(`no ${key} function`);
      expect(functionEnv(stage, fn)[tableEnvVar('awsExternalIds')]).toBeTruthy();
    }
  });

  it('exports the outputs the CLI reads for --stage', () => {
    const template = synth.template(stage);
    template.hasOutput(API_URL_OUTPUT, {});
    template.hasOutput(SECRETS_KEY_OUTPUT, {});
    template.hasOutput(DELIVERY_PRINCIPAL_OUTPUT, {});
    for (const def of tableList) template.hasOutput(tableOutputName(def.name), {});
    for (const def of queueList) template.hasOutput(queueOutputName(def.name), {});
  });

  it('alarms on DLQ depth, API 5xx, failed executions and Lambda errors to the alarm topic', () => {
    const template = synth.template(stage);
    const alarms = alarmResources(stage).map(([, a]) => a.Properties);
    const count = (metric: string) => alarms.filter((a) => a.MetricName === metric).length;
    expect(count('ApproximateNumberOfMessagesVisible')).toBe(queueList.length + streamList.length);
    expect(count('5xx')).toBe(1);
    expect(count('ExecutionsFailed')).toBe(workflowList.length);
    expect(count('Errors')).toBe(expectedFunctions);
    for (const alarm of alarms) expect(alarm.AlarmActions).toEqual([{ Ref: expect.any(String) }]);
    template.hasResourceProperties('AWS::SNS::Topic', { KmsMasterKeyId: Match.anyValue() });
    const email = synth.config(stage).alarmEmail;
    template.resourceCountIs('AWS::SNS::Subscription', email ? 1 : 0);
    if (email)
      template.hasResourceProperties('AWS::SNS::Subscription', { Protocol: 'email', Endpoint: email });
  });

  it('alarms on the delivery failure rate and on the oldest message of every queue', () => {
    const template = synth.alarmsTemplate(stage);
    const service = [
      { Name: 'service', Value: METRICS_SERVICE },
      { Name: 'stage', Value: stage },
    ];
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Threshold: 25,
      EvaluationPeriods: 3,
      DatapointsToAlarm: 2,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      AlarmActions: [{ Ref: Match.anyValue() }],
      Metrics: Match.arrayWith([
        Match.objectLike({
          Expression: 'IF(attempts >= 20, 100 * failures / attempts, 0)',
          ReturnData: true,
        }),
        Match.objectLike({
          Id: 'attempts',
          MetricStat: Match.objectLike({
            Metric: { Namespace: METRICS_NAMESPACE, MetricName: 'DeliveryAttempts', Dimensions: service },
            Stat: 'Sum',
          }),
        }),
        Match.objectLike({
          Id: 'failures',
          MetricStat: Match.objectLike({
            Metric: { Namespace: METRICS_NAMESPACE, MetricName: 'DeliveryFailures', Dimensions: service },
            Stat: 'Sum',
          }),
        }),
      ]),
    });
    const stack = synth.stack(stage);
    for (const [, q] of stack.notifications.queues) {
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        Namespace: 'AWS/SQS',
        MetricName: 'ApproximateAgeOfOldestMessage',
        Statistic: 'Maximum',
        Threshold: 900,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        Dimensions: [
          {
            Name: 'QueueName',
            Value: {
              Ref: alarmStackParameter(stage, {
                'Fn::GetAtt': [logicalId(stack, q.queue.node.defaultChild), 'QueueName'],
              }),
            },
          },
        ],
        AlarmActions: [{ Ref: Match.anyValue() }],
      });
    }
    const ageAlarms = alarmResources(stage).filter(
      ([, a]) => a.Properties.MetricName === 'ApproximateAgeOfOldestMessage',
    );
    expect(ageAlarms).toHaveLength(queueList.length);
  });

  it('builds the stage dashboard from the route, queue, workflow and metric catalogs', () => {
    const template = synth.template(stage);
    template.hasResourceProperties('AWS::CloudWatch::Dashboard', { DashboardName: `causeway-${stage}` });
    template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      DefaultRouteSettings: Match.objectLike({ DetailedMetricsEnabled: true }),
    });
    const [[, dashboard] = ['', undefined]] = resources(stage, 'AWS::CloudWatch::Dashboard');
    const body = dashboardBody(dashboard?.Properties.DashboardBody);
    const metrics = body.widgets.flatMap((w) => w.properties.metrics ?? []);
    const has = (namespace: string, name: string, dimensions: Record<string, string> = {}) =>
      metrics.some((m) => {
        if (m[0] !== namespace || m[1] !== name) return false;
        const parts = m.slice(2).filter((p): p is string => typeof p === 'string');
        const dims = Object.fromEntries(parts.flatMap((p, i) => (i % 2 === 0 ? [[p, parts[i + 1]]] : [])));
        return Object.entries(dimensions).every(([k, v]) => dims[k] === v);
      });
    for (const route of routeList) {
      for (const name of ['4xx', '5xx', 'Latency'])
        expect(
          has('AWS/ApiGateway', name, { Method: route.method, Resource: route.path }),
          `${name} ${routeKey(route)}`,
        ).toBe(true);
    }
    for (const name of Object.keys(catalogMetrics))
      expect(has(METRICS_NAMESPACE, name, { service: METRICS_SERVICE, stage }), name).toBe(true);
    for (const outcome of DELIVERY_OUTCOMES)
      expect(has(METRICS_NAMESPACE, 'DeliveryAttempts', { outcome }), outcome).toBe(true);
    for (const reason of AUTH_DENIAL_REASONS)
      expect(has(METRICS_NAMESPACE, 'AuthDenials', { reason }), reason).toBe(true);
    const count = (namespace: string, name: string) =>
      metrics.filter((m) => m[0] === namespace && m[1] === name).length;
    expect(count('AWS/SQS', 'ApproximateAgeOfOldestMessage')).toBe(queueList.length);
    // The dashboard charts every dead-letter queue that has an alarm (the same map builds both).
    const dlqAlarms = alarmResources(stage).filter(
      ([, a]) => a.Properties.MetricName === 'ApproximateNumberOfMessagesVisible',
    );
    expect(count('AWS/SQS', 'ApproximateNumberOfMessagesVisible')).toBe(dlqAlarms.length);
    expect(dlqAlarms.length).toBeGreaterThanOrEqual(queueList.length);
    expect(count('AWS/States', 'ExecutionsFailed')).toBe(workflowList.length);
    const alarmWidget = body.widgets.find((w) => w.type === 'alarm');
    expect(alarmWidget?.properties.alarms).toHaveLength(alarmResources(stage).length);
  });
});

interface DashboardWidget {
  type: string;
  properties: { metrics?: unknown[][]; alarms?: unknown[] };
}

/** The dashboard body with every CloudFormation token (ids, ARNs) replaced by a placeholder. */
function dashboardBody(value: unknown): { widgets: DashboardWidget[] } {
  const join = (value as { 'Fn::Join': [string, unknown[]] })['Fn::Join'];
  const text = join[1].map((part) => (typeof part === 'string' ? part : 'TOKEN')).join(join[0]);
  return JSON.parse(text) as { widgets: DashboardWidget[] };
}

describe('stage selection', () => {
  it('synthesizes every deployable stage and never the local one', () => {
    expect(synth.stacks.map((s) => s.stackName).sort()).toEqual(['Causeway-dev', 'Causeway-prod']);
  });

  it('bundles each handler once and ships the same asset to every stage', () => {
    const code = (stage: string) =>
      new Set(
        resources(stage, 'AWS::Lambda::Function').map(
          ([, f]) => (f.Properties.Code as { S3Key: string }).S3Key,
        ),
      );
    expect([...code('dev')].sort()).toEqual([...code('prod')].sort());
  });
});

describe.each(['dev', 'prod'])('the console of Causeway-%s', (stage) => {
  it('keeps the assets in a private, encrypted, TLS-only bucket read by CloudFront through origin access control', () => {
    const template = synth.template(stage);
    template.hasResourceProperties('AWS::S3::Bucket', {
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
      BucketEncryption: Match.objectLike({}),
    });
    template.hasResourceProperties('AWS::CloudFront::OriginAccessControl', {
      OriginAccessControlConfig: Match.objectLike({
        OriginAccessControlOriginType: 's3',
        SigningBehavior: 'always',
      }),
    });
    template.hasResourceProperties('AWS::S3::BucketPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
          Match.objectLike({ Effect: 'Allow', Principal: { Service: 'cloudfront.amazonaws.com' } }),
        ]),
      },
    });
  });

  it('serves /console* from the bucket with security headers and everything else from the API, same origin, uncached', () => {
    const template = synth.template(stage);
    template.hasResourceProperties('AWS::CloudFront::Distribution', {
      DistributionConfig: Match.objectLike({
        DefaultCacheBehavior: Match.objectLike({
          AllowedMethods: Match.arrayWith(['PUT', 'POST', 'DELETE']),
          // Managed policies: CachingDisabled, AllViewerExceptHostHeader (Authorization reaches the authorizer).
          CachePolicyId: '4135ea2d-6df8-44a3-9df3-4b5a84be39ad',
          OriginRequestPolicyId: 'b689b0a8-53d0-40ab-baf2-68738e2966ac',
          ViewerProtocolPolicy: 'https-only',
        }),
        CacheBehaviors: [
          Match.objectLike({
            PathPattern: '/console*',
            ViewerProtocolPolicy: 'redirect-to-https',
            ResponseHeadersPolicyId: Match.anyValue(),
            FunctionAssociations: [Match.objectLike({ EventType: 'viewer-request' })],
          }),
        ],
      }),
    });
    template.hasResourceProperties('AWS::CloudFront::ResponseHeadersPolicy', {
      ResponseHeadersPolicyConfig: Match.objectLike({
        SecurityHeadersConfig: Match.objectLike({
          ContentSecurityPolicy: Match.objectLike({
            ContentSecurityPolicy: Match.stringLikeRegexp("default-src 'self'"),
          }),
          FrameOptions: { FrameOption: 'DENY', Override: true },
          ContentTypeOptions: { Override: true },
        }),
      }),
    });
    template.hasOutput('ConsoleUrl', Match.anyValue());
  });
});
