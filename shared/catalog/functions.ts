/**
 * Functions that are neither routes, queue consumers nor workflow tasks.
 *
 * - `internalFunctions`: invoked synchronously by other functions with the Lambda Invoke API
 *   (the local cloud serves the same API in-process). The platform connector lives here so
 *   that the heavy database drivers load only in the function that needs them, never in the
 *   API bundles.
 * - `schedules`: functions EventBridge runs on a rate (the local cloud runs them on a timer).
 *
 * Each entry names the capability it serves; the CDK stack builds each capability's functions
 * in that capability's construct (integrations: `IntegrationFunctions`, webhooks:
 * `Notifications`).
 */
import type { FunctionAccess } from './access';

export type FunctionCapability = 'integrations' | 'webhooks';

export interface InternalFunctionDef extends FunctionAccess {
  readonly name: string;
  readonly capability: FunctionCapability;
  readonly description: string;
  readonly handler: string;
  readonly timeoutSeconds: number;
  readonly memoryMb: number;
  /** Concurrent executions reserved for (and capping) the function; unset: the account's pool. */
  readonly reservedConcurrency?: number;
}

export interface ScheduleDef extends FunctionAccess {
  readonly name: string;
  readonly capability: FunctionCapability;
  readonly description: string;
  readonly handler: string;
  readonly rateMinutes: number;
  /** The stage setting (minutes) that decides the rate in a deployed stage, where one does. */
  readonly rateStageSetting?: 'integrationCheckMinutes';
  /**
   * The local cloud's interval: the variable giving it in seconds, and its default (a schedule
   * without one runs every `LOCAL_SCHEDULE_INTERVAL_MS`).
   */
  readonly localInterval?: { readonly env: string; readonly defaultSeconds: number };
  readonly timeoutSeconds: number;
}

export const internalFunctions = [
  {
    name: 'platformConnector',
    capability: 'integrations',
    description: 'Runs connector validations against a remote platform (real drivers or the sandbox).',
    handler: 'functions/connector/validate.ts',
    // The POST/PUT/DELETE routes wait on it within their 30 s (API Gateway's integration limit):
    // it must give up first, so a slow remote is a 502 the route explains, never a gateway 504.
    // A validation is a few connections, each bounded by CONNECT_TIMEOUT_MS (5 s).
    timeoutSeconds: 28,
    memoryMb: 1024,
    usesSecrets: true,
  },
  {
    name: 'webhookSender',
    capability: 'webhooks',
    description:
      'Re-sends a webhook history record on behalf of POST /webhooks/history/retry/{id} (HTTP client, SSRF guard, secrets).',
    handler: 'functions/webhooks/send.ts',
    // Below API Gateway's 30 s integration limit for the route that waits on it.
    timeoutSeconds: 28,
    memoryMb: 512,
    // Manual retries fan out to receivers from here: however many users retry at once, at most
    // this many POSTs are in flight (past it the route answers 429). Small, so it fits an
    // account's default unreserved concurrency.
    reservedConcurrency: 5,
    tables: [
      { table: 'webhooks', access: 'read' },
      { table: 'deliveryHistory', access: 'readWrite' },
      { table: 'counters', access: 'readWrite' },
    ],
    usesSecrets: true,
    // Test sends and manual retries to an AWS destination go through the stage's principal (ADR 0019).
    deliveryPrincipal: 'assume',
  },
] as const satisfies readonly InternalFunctionDef[];

export const schedules = [
  {
    name: 'reconcileIntegrations',
    capability: 'integrations',
    description:
      'Moves integrations stuck in creating/editing/deleting (workflow gone, never started, or past the timeout) to their error status.',
    handler: 'functions/scheduled/reconcile-integrations.ts',
    rateMinutes: 5,
    timeoutSeconds: 60,
    tables: [
      { table: 'integrations', access: 'readWrite' },
      { table: 'integrationClaims', access: 'readWrite' },
      { table: 'transientSecrets', access: 'readWrite' },
    ],
    startsWorkflow: true,
    usesSecrets: true,
  },
  {
    name: 'startIntegrationChecks',
    capability: 'integrations',
    description:
      'Starts a round of periodic integration checks: one page message on the integrationChecks queue (its consumer fans out the rest).',
    handler: 'functions/scheduled/start-integration-checks.ts',
    rateMinutes: 60,
    rateStageSetting: 'integrationCheckMinutes',
    localInterval: { env: 'INTEGRATION_CHECK_INTERVAL_SECONDS', defaultSeconds: 300 },
    timeoutSeconds: 10,
    sendsTo: ['integrationChecks'],
  },
] as const satisfies readonly ScheduleDef[];

export type InternalFunctionName = (typeof internalFunctions)[number]['name'];

export function functionEnvVar(name: string): string {
  return `FUNCTION_${name.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase()}_NAME`;
}
