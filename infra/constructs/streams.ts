/**
 * DynamoDB stream consumers (`shared/catalog/streams.ts`): one function per entry reading its
 * table's stream with partial batch responses. A batch that still fails after the retries is
 * reported to a failure queue (its shard and sequence range; the records stay in the stream for
 * 24 hours), where the dashboard's DLQ alarm sees it.
 */
import { Duration } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq } from 'aws-cdk-lib/aws-lambda-event-sources';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { type StreamConsumerDef, streamConsumers } from '../../shared/catalog/streams';
import type { HandlerBundles } from './bundles';
import {
  acknowledge,
  CausewayFunction,
  removalPolicy,
  type StackResources,
  type StageContext,
} from './function';

export interface StreamsProps {
  readonly stage: StageContext;
  readonly resources: StackResources;
  /** @default - each function bundles itself */
  readonly bundles?: HandlerBundles;
  /** @default every entry of the stream consumer catalog */
  readonly consumers?: readonly StreamConsumerDef[];
}

export interface StreamConsumer {
  readonly consumer: CausewayFunction;
  readonly failures: sqs.Queue;
}

const pascal = (name: string) => name.charAt(0).toUpperCase() + name.slice(1);

export class StreamConsumers extends Construct {
  /** Catalog name → consumer function and its failure queue. */
  public readonly consumers: ReadonlyMap<string, StreamConsumer>;

  constructor(scope: Construct, id: string, props: StreamsProps) {
    super(scope, id);
    const created = new Map<string, StreamConsumer>();
    for (const def of props.consumers ?? (streamConsumers as readonly StreamConsumerDef[])) {
      const name = pascal(def.name);
      const table = props.resources.table(def.table) as dynamodb.ITable;
      const failures = new sqs.Queue(this, `${name}Failures`, {
        encryption: sqs.QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
        retentionPeriod: Duration.days(14),
        removalPolicy: removalPolicy(props.stage),
      });
      acknowledge(failures, 'AwsSolutions-SQS3', [
        'This queue is itself the failure destination of a stream event source mapping (it receives',
        'the shard and sequence range of a batch that kept failing); it has no consumer to dead-letter from.',
      ]);
      const consumer = new CausewayFunction(this, `${name}Consumer`, {
        stage: props.stage,
        resources: props.resources,
        bundles: props.bundles,
        handler: def.handler,
        description: def.description,
        access: def,
        timeoutSeconds: def.timeoutSeconds,
        memoryMb: def.memoryMb,
      });
      consumer.addEventSource(
        new DynamoEventSource(table, {
          startingPosition: lambda.StartingPosition.TRIM_HORIZON,
          batchSize: def.batchSize,
          maxBatchingWindow: Duration.seconds(def.maxBatchingWindowSeconds),
          reportBatchItemFailures: true,
          retryAttempts: 100,
          onFailure: new SqsDlq(failures),
        }),
      );
      created.set(def.name, { consumer, failures });
    }
    this.consumers = created;
  }
}
