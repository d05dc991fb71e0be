/**
 * Alarms and where they go: an SNS topic (encrypted with its own key, HTTPS-only publishers)
 * with the stage's on-call e-mail subscribed when one is set, and alarms on every DLQ holding
 * a message, API 5xx answers, failed workflow executions and Lambda errors.
 */
import { Duration } from 'aws-cdk-lib';
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
import { removalPolicy, type StageContext } from './function';

export interface ObservabilityProps {
  readonly stage: StageContext;
  /** Catalogue queue name → its dead-letter queue. */
  readonly deadLetterQueues: ReadonlyMap<string, sqs.IQueue>;
  readonly httpApi: apigw.IHttpApi;
  /** Catalogue workflow name → state machine. */
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
}

export class Observability extends Construct {
  /** Where every alarm notifies (the stage's alarm e-mail is subscribed when set). */
  public readonly alarmTopic: sns.Topic;
  public readonly alarms: readonly cloudwatch.Alarm[];

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
    const alarms: cloudwatch.Alarm[] = [];
    const add = (alarmId: string, metric: cloudwatch.IMetric, description: string, threshold = 0) => {
      const alarm = new cloudwatch.Alarm(this, alarmId, {
        metric,
        threshold,
        evaluationPeriods: 1,
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
    this.alarms = alarms;
  }
}

const pascal = (name: string) => name.charAt(0).toUpperCase() + name.slice(1);
