/**
 * Data at rest: one DynamoDB table per entry of the table catalog, and the KMS key that wraps
 * the data keys of the secrets envelope (`shared/crypto/envelope.ts`).
 *
 * Table encryption is the AWS managed key (`aws/dynamodb`): every item is encrypted with KMS
 * and every key use is in CloudTrail, without a key policy to keep in step with each
 * function's grants and without per-request KMS charges on every read. The values that need a
 * key under our own control — credentials and webhook secrets — are already encrypted by the
 * application with the customer managed secrets key below before they reach a table.
 */
import { Duration } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as kms from 'aws-cdk-lib/aws-kms';
import { Construct } from 'constructs';
import { type IndexDef, type KeyAttribute, type TableDef, tables } from '../../shared/catalog/tables';
import { removalPolicy, type StackResources, type StageContext } from './function';

export interface DataProps {
  readonly stage: StageContext;
  /** Tables and the secrets key are registered here for the functions' grants. */
  readonly resources: StackResources;
  /**
   * The tables to create.
   * @default every entry of the table catalog (`shared/catalog/tables.ts`)
   */
  readonly tables?: readonly TableDef[];
  /**
   * Refuse deletes of tables through the API (in addition to the removal policy).
   * @default true when the stage retains data (`removalPolicy: retain`), else false
   */
  readonly deletionProtection?: boolean;
}

function attribute(key: KeyAttribute): dynamodb.Attribute {
  return {
    name: key.name,
    type: key.type === 'N' ? dynamodb.AttributeType.NUMBER : dynamodb.AttributeType.STRING,
  };
}

function projection(
  index: IndexDef,
): Pick<dynamodb.GlobalSecondaryIndexProps, 'projectionType' | 'nonKeyAttributes'> {
  if (index.projection === undefined || index.projection === 'ALL')
    return { projectionType: dynamodb.ProjectionType.ALL };
  if (index.projection === 'KEYS_ONLY') return { projectionType: dynamodb.ProjectionType.KEYS_ONLY };
  return { projectionType: dynamodb.ProjectionType.INCLUDE, nonKeyAttributes: [...index.projection] };
}

export class Data extends Construct {
  /** Catalog name → table. */
  public readonly tables: ReadonlyMap<string, dynamodb.Table>;
  /** Customer managed key (rotation on) for the secrets envelope encryption. */
  public readonly secretsKey: kms.Key;

  constructor(scope: Construct, id: string, props: DataProps) {
    super(scope, id);
    const removal = removalPolicy(props.stage);
    const deletionProtection = props.deletionProtection ?? props.stage.config.removalPolicy === 'retain';
    const created = new Map<string, dynamodb.Table>();
    for (const def of props.tables ?? (tables as readonly TableDef[])) {
      const id = def.name.charAt(0).toUpperCase() + def.name.slice(1);
      const table = new dynamodb.Table(this, `${id}Table`, {
        partitionKey: attribute(def.partitionKey),
        ...(def.sortKey ? { sortKey: attribute(def.sortKey) } : {}),
        billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
        pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
        encryption: dynamodb.TableEncryption.AWS_MANAGED,
        ...(def.ttlAttribute ? { timeToLiveAttribute: def.ttlAttribute } : {}),
        ...(def.stream ? { stream: dynamodb.StreamViewType[def.stream] } : {}),
        removalPolicy: removal,
        deletionProtection,
      });
      for (const index of def.indexes ?? []) {
        table.addGlobalSecondaryIndex({
          indexName: index.name,
          partitionKey: attribute(index.partitionKey),
          ...(index.sortKey ? { sortKey: attribute(index.sortKey) } : {}),
          ...projection(index),
        });
      }
      created.set(def.name, table);
      props.resources.addTable(def.name, table);
    }
    this.tables = created;

    this.secretsKey = new kms.Key(this, 'SecretsKey', {
      description: `Causeway ${props.stage.name}: wraps the data keys that encrypt stored credentials and webhook secrets`,
      enableKeyRotation: true,
      removalPolicy: removal,
      pendingWindow: Duration.days(30),
    });
    props.resources.setSecretsKey(this.secretsKey);
  }
}
