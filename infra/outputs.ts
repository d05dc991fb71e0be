/**
 * Names shared by the CDK stack (which exports them as CloudFormation outputs), the CLI (which
 * reads them to reach a deployed stage) and the local cloud (which names its stand-ins alike).
 */
export function stackName(stage: string): string {
  return `Causeway-${stage}`;
}

/** Output holding the physical name of a cataloged table, e.g. `TableApiKeys`. */
export function tableOutputName(table: string): string {
  return `Table${table.charAt(0).toUpperCase()}${table.slice(1)}`;
}

/** Output holding a queue URL, e.g. `QueueNotificationsUrl`. */
export function queueOutputName(queue: string): string {
  return `Queue${queue.charAt(0).toUpperCase()}${queue.slice(1)}Url`;
}

export const API_URL_OUTPUT = 'ApiUrl';
export const SECRETS_KEY_OUTPUT = 'SecretsKeyId';
/** The console's assets bucket and CloudFront distribution (infra/constructs/console.ts). */
export const CONSOLE_URL_OUTPUT = 'ConsoleUrl';
export const CONSOLE_BUCKET_OUTPUT = 'ConsoleBucket';
export const CONSOLE_DISTRIBUTION_OUTPUT = 'ConsoleDistributionId';
/** The webhook delivery principal's role ARN (ADR 0019): what customers' AWS roles trust. */
export const DELIVERY_PRINCIPAL_OUTPUT = 'WebhookDeliveryPrincipalArn';

/**
 * The fixed name of a stage's webhook delivery principal role (ADR 0019), so its ARN, which
 * customers write into their roles' trust policies, never changes with a redeploy.
 */
export function deliveryPrincipalRoleName(stage: string): string {
  return `causeway-${stage}-webhook-delivery`;
}
