/**
 * Alarms and where they go: an SNS topic (encrypted with its own key, HTTPS-only publishers)
 * with the stage's on-call e-mail subscribed when one is set, and alarms on every DLQ holding
 * a message, API 5xx answers, failed workflow executions, Lambda errors, the webhook delivery
 * failure rate and the age of the oldest message of every queue. And the stage's dashboard,
 * built from the catalogs (routes, queues, workflows, metrics): see docs/operations.md.
 *
 * The alarms are a nested stack of their own (`alarmStack`, ADR 0022): with one per function,
 * queue, DLQ and workflow they are about 75 resources, and CloudFormation takes at most 500 per
 * stack. The topic, its key and the dashboard stay in the stage's stack, so a topic's e-mail
 * subscription and the dashboard's fixed name survive the move.
 */
import { Duration, NestedStack } from 'aws-cdk-lib';
import type * as apigw from 'aws-cdk-lib/aws-apigatewayv2';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import {
  AUTH_DENIAL_REASONS,
  DELIVERY_OUTCOMES,
  LIFECYCLE_OUTCOMES,
  METRICS_NAMESPACE,
  METRICS_SERVICE,
  type MetricName,
} from '../../shared/catalog/metrics';
import { type RouteDef, routes as routeCatalog } from '../../shared/catalog/routes';
import { removalPolicy, type StageContext } from './function';

export interface ObservabilityProps {
  readonly stage: StageContext;
  /** Catalog queue name → its dead-letter queue. */
  readonly deadLetterQueues: ReadonlyMap<string, sqs.IQueue>;
  /** Catalog queue name → the queue (age of the oldest message). */
  readonly queues: ReadonlyMap<string, sqs.IQueue>;
  readonly httpApi: apigw.IHttpApi;
  /** The API's stage (route-level metrics are per stage; detailed metrics must be on). */
  readonly httpStage: apigw.IHttpStage;
  /**
   * The routes the dashboard charts per route.
   * @default the route catalog
   */
  readonly routes?: readonly RouteDef[];
  /** Catalog workflow name → state machine. */
  readonly stateMachines: ReadonlyMap<string, sfn.IStateMachine>;
  /** Construct id → function, for the Lambda error alarms. */
  readonly functions: ReadonlyMap<string, lambda.IFunction>;
  /**
   * 5xx answers in one period that raise the API alarm.
   * @default 1
   */
  readonly apiServerErrorThreshold?: number;
  /**
   * Alarm evaluation period.
   * @default 5 minutes
   */
  readonly period?: Duration;
  /**
   * Percentage of failed delivery attempts in a period that raises the delivery alarm.
   * @default 25
   */
  readonly deliveryFailureRatePercent?: number;
  /**
   * Attempts a period needs before its failure rate counts (a few failures of a quiet hour are
   * a receiver's problem, not the pipeline's).
   * @default 20
   */
  readonly deliveryFailureRateMinAttempts?: number;
  /**
   * Age in seconds of a queue's oldest message that raises its alarm. Above what retries keep
   * in the deliveries queue on purpose (see docs/operations.md).
   * @default 900
   */
  readonly oldestMessageAgeSeconds?: number;
}

/** A cataloged custom metric of this stage, optionally narrowed by more dimensions. */
function serviceMetric(
  stage: string,
  name: MetricName,
  options: { statistic: string; period: Duration; dimensions?: Record<string, string>; label?: string },
): cloudwatch.Metric {
  return new cloudwatch.Metric({
    namespace: METRICS_NAMESPACE,
    metricName: name,
    dimensionsMap: { service: METRICS_SERVICE, stage, ...options.dimensions },
    statistic: options.statistic,
    period: options.period,
    ...(options.label ? { label: options.label } : {}),
  });
}

export class Observability extends Construct {
  /** Where every alarm notifies (the stage's alarm e-mail is subscribed when set). */
  public readonly alarmTopic: sns.Topic;
  public readonly alarms: readonly cloudwatch.Alarm[];
  /** The nested stack that holds the alarms. */
  public readonly alarmStack: NestedStack;
  /** The stage's operations dashboard. */
  public readonly dashboard: cloudwatch.Dashboard;

  constructor(scope: Construct, id: string, props: ObservabilityProps) {
    super(scope, id);
    const period = props.period ?? Duration.minutes(5);

    // CloudWatch cannot publish to a topic under the AWS managed SNS key, so the topic has its own.
    const topicKey = new kms.Key(this, 'AlarmTopicKey', {
      description: `Causeway ${props.stage.name}: encrypts alarm notifications`,
      enableKeyRotation: true,
      removalPolicy: removalPolicy(props.stage),
    });
    topicKey.addToResourcePolicy(
      new iam.PolicyStatement({
        principals: [new iam.ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['kms:Decrypt', 'kms:GenerateDataKey*'],
        resources: ['*'],
      }),
    );
    this.alarmTopic = new sns.Topic(this, 'AlarmTopic', {
      displayName: `Causeway ${props.stage.name} alarms`,
      masterKey: topicKey,
      enforceSSL: true,
    });
    if (props.stage.config.alarmEmail) {
      this.alarmTopic.addSubscription(new subscriptions.EmailSubscription(props.stage.config.alarmEmail));
    }
    const action = new SnsAction(this.alarmTopic);
    this.alarmStack = new NestedStack(this, 'Alarms', {
      description: `Causeway ${props.stage.name}: alarms to the alarm topic`,
    });
    const alarms: cloudwatch.Alarm[] = [];
    const add = (
      alarmId: string,
      metric: cloudwatch.IMetric,
      description: string,
      threshold = 0,
      evaluation: { evaluationPeriods: number; datapointsToAlarm?: number } = { evaluationPeriods: 1 },
    ) => {
      const alarm = new cloudwatch.Alarm(this.alarmStack, alarmId, {
        metric,
        threshold,
        ...evaluation,
        comparisonOperator:
          threshold === 0
            ? cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD
            : cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
        alarmDescription: description,
      });
      alarm.addAlarmAction(action);
      alarms.push(alarm);
    };

    for (const [name, dlq] of props.deadLetterQueues) {
      add(
        `${pascal(name)}DlqAlarm`,
        dlq.metricApproximateNumberOfMessagesVisible({ period, statistic: 'Maximum' }),
        `Messages are waiting in the ${name} dead-letter queue`,
      );
    }
    add(
      'Api5xxAlarm',
      props.httpApi.metricServerError({ period, statistic: 'Sum' }),
      'The HTTP API answered with 5xx',
      props.apiServerErrorThreshold ?? 1,
    );
    for (const [name, machine] of props.stateMachines) {
      add(
        `${pascal(name)}FailedAlarm`,
        machine.metricFailed({ period, statistic: 'Sum' }),
        `Executions of the ${name} workflow failed`,
      );
    }
    for (const [fnId, fn] of props.functions) {
      add(`${fnId}ErrorsAlarm`, fn.metricErrors({ period, statistic: 'Sum' }), `${fnId} threw errors`);
    }

    const stage = props.stage.name;
    const custom = (
      name: MetricName,
      statistic: string,
      more: { dimensions?: Record<string, string>; label?: string } = {},
    ) => serviceMetric(stage, name, { statistic, period, ...more });
    const minAttempts = props.deliveryFailureRateMinAttempts ?? 20;
    const failureRate = new cloudwatch.MathExpression({
      expression: `IF(attempts >= ${minAttempts}, 100 * failures / attempts, 0)`,
      usingMetrics: {
        attempts: custom('DeliveryAttempts', 'Sum'),
        failures: custom('DeliveryFailures', 'Sum'),
      },
      period,
      label: 'Failed delivery attempts (%)',
    });
    // Two periods of three: one bad burst of a single receiver does not page.
    add(
      'DeliveryFailureRateAlarm',
      failureRate,
      `More than ${props.deliveryFailureRatePercent ?? 25}% of webhook delivery attempts failed (periods with at least ${minAttempts} attempts)`,
      props.deliveryFailureRatePercent ?? 25,
      { evaluationPeriods: 3, datapointsToAlarm: 2 },
    );
    const maxAge = props.oldestMessageAgeSeconds ?? 900;
    for (const [name, queue] of props.queues) {
      add(
        `${pascal(name)}OldestMessageAlarm`,
        queue.metricApproximateAgeOfOldestMessage({ period, statistic: 'Maximum' }),
        `The oldest message of the ${name} queue is older than ${maxAge} s: its consumer is not keeping up or not running`,
        maxAge,
      );
    }
    this.alarms = alarms;

    this.dashboard = this.buildDashboard(props, period, custom, failureRate);
  }

  private buildDashboard(
    props: ObservabilityProps,
    period: Duration,
    custom: (
      name: MetricName,
      statistic: string,
      more?: { dimensions?: Record<string, string>; label?: string },
    ) => cloudwatch.Metric,
    failureRate: cloudwatch.MathExpression,
  ): cloudwatch.Dashboard {
    const dashboard = new cloudwatch.Dashboard(this, 'Dashboard', {
      dashboardName: `causeway-${props.stage.name}`,
      defaultInterval: Duration.hours(3),
    });
    const graph = (title: string, left: cloudwatch.IMetric[], width = 8) =>
      new cloudwatch.GraphWidget({ title, left, width, height: 6 });
    const stageName = props.httpStage.stageName;
    const routeMetric = (route: RouteDef, metricName: string, statistic: string) =>
      new cloudwatch.Metric({
        namespace: 'AWS/ApiGateway',
        metricName,
        dimensionsMap: {
          ApiId: props.httpApi.apiId,
          Stage: stageName,
          Method: route.method,
          Resource: route.path,
        },
        statistic,
        period,
        label: `${route.method} ${route.path}`,
      });

    dashboard.addWidgets(
      new cloudwatch.AlarmStatusWidget({ title: 'Alarms', alarms: [...this.alarms], width: 24, height: 4 }),
    );

    // API: the stage as a whole, then per route, grouped by the route table's tags.
    dashboard.addWidgets(
      graph('API requests, 4xx and 5xx', [
        props.httpApi.metricCount({ period, statistic: 'Sum', label: 'requests' }),
        props.httpApi.metricClientError({ period, label: '4xx' }),
        props.httpApi.metricServerError({ period, label: '5xx' }),
      ]),
      graph('API latency (ms)', [
        props.httpApi.metricLatency({ period, statistic: 'p50', label: 'p50' }),
        props.httpApi.metricLatency({ period, statistic: 'p90', label: 'p90' }),
        props.httpApi.metricLatency({ period, statistic: 'p99', label: 'p99' }),
      ]),
      graph(
        'Authentication denials by reason',
        AUTH_DENIAL_REASONS.map((reason) =>
          custom('AuthDenials', 'Sum', { dimensions: { reason }, label: reason }),
        ),
      ),
    );
    const routeList = props.routes ?? (routeCatalog as readonly RouteDef[]);
    for (const tag of [...new Set(routeList.map((r) => r.tag))]) {
      const tagged = routeList.filter((r) => r.tag === tag);
      dashboard.addWidgets(
        graph(
          `${tag} routes: 4xx`,
          tagged.map((r) => routeMetric(r, '4xx', 'Sum')),
        ),
        graph(
          `${tag} routes: 5xx`,
          tagged.map((r) => routeMetric(r, '5xx', 'Sum')),
        ),
        graph(
          `${tag} routes: p90 latency (ms)`,
          tagged.map((r) => routeMetric(r, 'Latency', 'p90')),
        ),
      );
    }

    // Webhook deliveries.
    dashboard.addWidgets(
      graph('Delivery success rate (%)', [
        new cloudwatch.MathExpression({
          expression: 'IF(attempts > 0, 100 * (attempts - failures) / attempts)',
          usingMetrics: {
            attempts: custom('DeliveryAttempts', 'Sum'),
            failures: custom('DeliveryFailures', 'Sum'),
          },
          period,
          label: 'success rate',
        }),
        failureRate,
      ]),
      graph(
        'Delivery attempts by outcome',
        DELIVERY_OUTCOMES.map((outcome) =>
          custom('DeliveryAttempts', 'Sum', { dimensions: { outcome }, label: outcome }),
        ),
      ),
      graph('Receiver latency and time to first attempt (ms)', [
        custom('DeliveryLatency', 'p50', { label: 'receiver p50' }),
        custom('DeliveryLatency', 'p99', { label: 'receiver p99' }),
        custom('TimeToFirstAttempt', 'p50', { label: 'to first attempt p50' }),
        custom('TimeToFirstAttempt', 'p99', { label: 'to first attempt p99' }),
      ]),
    );

    // Queues: lag and dead letters, per cataloged queue.
    dashboard.addWidgets(
      graph(
        'Age of the oldest message (s)',
        [...props.queues].map(([name, queue]) =>
          queue.metricApproximateAgeOfOldestMessage({ period, statistic: 'Maximum', label: name }),
        ),
      ),
      graph(
        'Dead-letter queue depth',
        [...props.deadLetterQueues].map(([name, dlq]) =>
          dlq.metricApproximateNumberOfMessagesVisible({
            period,
            statistic: 'Maximum',
            label: `${name} DLQ`,
          }),
        ),
      ),
      graph('Fan-out width (deliveries per notification)', [
        custom('FanOutWidth', 'Average', { label: 'average' }),
        custom('FanOutWidth', 'Maximum', { label: 'maximum' }),
        custom('FanOutWidth', 'SampleCount', { label: 'notifications' }),
      ]),
      graph('Webhook filter errors (evaluations counted as no match)', [
        custom('FilterErrors', 'Sum', { label: 'filter errors' }),
      ]),
    );

    // Integration lifecycle.
    dashboard.addWidgets(
      graph(
        'Lifecycle outcomes',
        LIFECYCLE_OUTCOMES.map((outcome) =>
          custom('LifecycleOutcomes', 'Sum', { dimensions: { outcome }, label: outcome }),
        ),
        12,
      ),
      graph(
        'Failed workflow executions',
        [...props.stateMachines].map(([name, machine]) =>
          machine.metricFailed({ period, statistic: 'Sum', label: name }),
        ),
        12,
      ),
    );
    return dashboard;
  }
}

const pascal = (name: string) => name.charAt(0).toUpperCase() + name.slice(1);
