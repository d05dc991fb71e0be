/**
 * What a function may touch. Every catalog entry that becomes a Lambda function (routes,
 * queue consumers, workflow tasks, internal functions, schedules) carries one of these; the
 * CDK function wrapper turns it into environment variables and least-privilege IAM grants
 * together, so a function can never reach a table its env does not name.
 */
import type { QueueName } from './queues';
import type { TableName } from './tables';

interface TableGrant {
  readonly table: TableName;
  readonly access: 'read' | 'readWrite';
}

export interface FunctionAccess {
  readonly tables?: readonly TableGrant[];
  /** Queues the function sends to (or changes visibility on / moves to the DLQ of). */
  readonly sendsTo?: readonly QueueName[];
  /** Starts (and describes) executions of the integration lifecycle state machine. */
  readonly startsWorkflow?: boolean;
  /** Encrypts/decrypts secrets (KMS data keys in AWS). */
  readonly usesSecrets?: boolean;
  /** Internal functions (see `functions.ts`) this function invokes synchronously. */
  readonly invokes?: readonly string[];
  /**
   * The stage's webhook delivery principal (ADR 0019), the one role customers' AWS roles trust.
   * `assume`: a function that reaches a customer's account through it — its ARN, `sts:AssumeRole`
   * on it, and a place in its trust policy; `name`: its ARN only (to show customers what to trust).
   */
  readonly deliveryPrincipal?: 'assume' | 'name';
}

/** The variable that holds the webhook delivery principal's role ARN. */
export const DELIVERY_PRINCIPAL_ENV = 'WEBHOOK_DELIVERY_PRINCIPAL_ARN';
