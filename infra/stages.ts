/**
 * Typed stage configuration, read from `cdk.json` → context `causeway:stages`. The CDK app
 * makes one stack per deployable stage; the local cloud reads the `local` entry. Invalid
 * config fails at synth time (or at `npm start`), never at run time.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as z from 'zod';
import { MAX_DELIVERY_RETRIES } from '../shared/catalog/queues';

const StageConfigSchema = z
  .object({
    /** `false` for stages that only the local cloud uses; `npm run synth` skips them. */
    deploy: z.boolean(),
    logRetentionDays: z.number().int().positive(),
    removalPolicy: z.enum(['destroy', 'retain']),
    alarmEmail: z.email().nullable(),
    webhookTimeoutMs: z.number().int().min(100).max(60_000),
    /** Delays between delivery attempts; the deliveries queue's maxReceiveCount bounds the count. */
    webhookRetryScheduleSeconds: z.array(z.number().int().min(0).max(43_200)).max(MAX_DELIVERY_RETRIES),
    historyRetentionDays: z.number().int().positive(),
    /**
     * Write shards per history audience (docs/adr/0006): each audience's listing partitions and
     * so its write rate are split N ways. Raise only: reads cover shards 0..N-1.
     */
    historyWriteShards: z.number().int().min(1).max(64),
    throttling: z.strictObject({ rateLimit: z.number().positive(), burstLimit: z.number().int().positive() }),
    /** How long API Gateway may cache an authorizer answer (a revoked key may live this long). */
    authorizerCacheSeconds: z.number().int().min(0).max(3600),
    /** `sandbox`: the simulated remote platform; `real`: the platform drivers. */
    platformMode: z.enum(['sandbox', 'real']),
    allowPrivateWebhookTargets: z.boolean(),
    /**
     * Whether integrations may connect to loopback and private addresses (warehouses inside a
     * private network). Link-local and metadata addresses are refused whatever it says.
     */
    allowPrivateIntegrationHosts: z.boolean(),
    /**
     * Bounds on what one user can make one notification fan out to: webhooks per user (admins
     * have their own quota) and webhooks of one user with the same URL.
     */
    webhookLimits: z.strictObject({
      perUser: z.number().int().min(1).max(10_000),
      perAdmin: z.number().int().min(1).max(10_000),
      perUrl: z.number().int().min(1).max(100),
    }),
    connectTimeoutMs: z.number().int().min(100).max(60_000),
    /**
     * Addresses of the stage's own TLS-terminating proxy, whose `X-Forwarded-Proto` the API
     * believes (for the service URL it writes into snippets and the OpenAPI servers).
     */
    trustedProxyAddresses: z.array(z.union([z.ipv4(), z.ipv6()])),
    /** Minutes between rounds of periodic integration checks (deployed stages; locally see INTEGRATION_CHECK_INTERVAL_SECONDS). */
    integrationCheckMinutes: z.number().int().min(1).max(1440),
    /** A webhook failing continuously this long, with at least this many failed attempts, is disabled. */
    webhookAutoDisable: z.strictObject({
      afterSeconds: z
        .number()
        .int()
        .min(1)
        .max(90 * 86_400),
      minAttempts: z.number().int().min(1).max(10_000),
    }),
    /** How long a rotated-out webhook secret keeps signing beside the new one. */
    webhookSecretOverlapSeconds: z
      .number()
      .int()
      .min(0)
      .max(30 * 86_400),
    /** Manual retries (`POST /webhooks/history/retry/{id}`) one user may start per window. */
    manualRetryRate: z.strictObject({
      perWindow: z.number().int().min(1).max(1000),
      windowSeconds: z.number().int().min(1).max(3600),
    }),
    /**
     * Recover jobs (`POST /webhooks/{id}/recover`): re-sends per rolling hour a user (an admin) may
     * start, weighted by deliveries; re-sends one job makes at most; seconds after a webhook's job
     * ends before its next may start.
     */
    webhookRecoverLimits: z.strictObject({
      userPerHour: z.number().int().min(1).max(1_000_000),
      adminPerHour: z.number().int().min(1).max(10_000_000),
      perJob: z.number().int().min(1).max(1_000_000),
      cooldownSeconds: z.number().int().min(0).max(86_400),
    }),
  })
  .strict();

export type StageConfig = z.infer<typeof StageConfigSchema>;

const StagesSchema = z.record(z.string().regex(/^[a-z][a-z0-9-]{0,19}$/), StageConfigSchema);

export type Stages = z.infer<typeof StagesSchema>;

export const STAGES_CONTEXT_KEY = 'causeway:stages';

export function parseStages(raw: unknown): Stages {
  const parsed = StagesSchema.safeParse(raw);
  if (!parsed.success) {
    throw new Error(`invalid ${STAGES_CONTEXT_KEY} in cdk.json: ${z.prettifyError(parsed.error)}`);
  }
  return parsed.data;
}

const repoRoot = join(import.meta.dirname, '..');

/** Reads the stages straight from cdk.json (for the local cloud, the CLI and tests). */
export function loadStages(): Stages {
  const cdkJson = JSON.parse(readFileSync(join(repoRoot, 'cdk.json'), 'utf8')) as {
    context?: Record<string, unknown>;
  };
  return parseStages(cdkJson.context?.[STAGES_CONTEXT_KEY]);
}

export function loadStage(name: string): StageConfig {
  const stage = loadStages()[name];
  if (!stage)
    throw new Error(`unknown stage "${name}" (cdk.json defines: ${Object.keys(loadStages()).join(', ')})`);
  return stage;
}

/**
 * The environment variables a stage's functions read (see `shared/config`). One mapping, used
 * by the CDK function wrapper and by the local cloud.
 */
export function stageEnvironment(stageName: string, stage: StageConfig): Record<string, string> {
  return {
    CAUSEWAY_STAGE: stageName,
    PLATFORM_MODE: stage.platformMode,
    WEBHOOK_TIMEOUT_MS: String(stage.webhookTimeoutMs),
    WEBHOOK_RETRY_SCHEDULE: stage.webhookRetryScheduleSeconds.join(','),
    HISTORY_RETENTION_DAYS: String(stage.historyRetentionDays),
    HISTORY_WRITE_SHARDS: String(stage.historyWriteShards),
    ALLOW_PRIVATE_TARGETS: String(stage.allowPrivateWebhookTargets),
    ALLOW_PRIVATE_INTEGRATION_HOSTS: String(stage.allowPrivateIntegrationHosts),
    CONNECT_TIMEOUT_MS: String(stage.connectTimeoutMs),
    WEBHOOK_QUOTA_USER: String(stage.webhookLimits.perUser),
    WEBHOOK_QUOTA_ADMIN: String(stage.webhookLimits.perAdmin),
    WEBHOOK_SAME_URL_LIMIT: String(stage.webhookLimits.perUrl),
    TRUSTED_PROXY_ADDRESSES: stage.trustedProxyAddresses.join(','),
    WEBHOOK_MANUAL_RETRY_LIMIT: String(stage.manualRetryRate.perWindow),
    WEBHOOK_MANUAL_RETRY_WINDOW_SECONDS: String(stage.manualRetryRate.windowSeconds),
    WEBHOOK_RECOVER_USER_PER_HOUR: String(stage.webhookRecoverLimits.userPerHour),
    WEBHOOK_RECOVER_ADMIN_PER_HOUR: String(stage.webhookRecoverLimits.adminPerHour),
    WEBHOOK_RECOVER_MAX_PER_JOB: String(stage.webhookRecoverLimits.perJob),
    WEBHOOK_RECOVER_COOLDOWN_SECONDS: String(stage.webhookRecoverLimits.cooldownSeconds),
    WEBHOOK_SECRET_OVERLAP_SECONDS: String(stage.webhookSecretOverlapSeconds),
    WEBHOOK_AUTO_DISABLE_AFTER_SECONDS: String(stage.webhookAutoDisable.afterSeconds),
    WEBHOOK_AUTO_DISABLE_MIN_ATTEMPTS: String(stage.webhookAutoDisable.minAttempts),
  };
}
