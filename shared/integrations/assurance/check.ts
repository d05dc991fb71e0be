/**
 * Continuous connection assurance: the check of one `enabled` or `recurringValidationError`
 * integration (its round: `./rounds.ts`). A check re-runs the connection test and the assurance checks of the type's setup plan (every
 * object and grant still in place, no unplanned grant on the service's own principals), at most
 * one check per remote host at a time. A failed check moves the integration to
 * `recurringValidationError`, a passing one back to `enabled`; entering and leaving that status
 * sends `healthCheckFailed` and `healthCheckResolved` through the notifications queue.
 */
import { randomUUID } from 'node:crypto';
import { intEnv } from '../../config/env';
import { logger } from '../../observability/logger';
import { hostOf, isRemoteType, type RemotePayload } from '../../platforms';
import { connectorFor } from '../../platforms/connectors';
import {
  type AssuranceFinding,
  type AssuranceResult,
  type PlatformConnector,
  summarize,
  type ValidationTest,
} from '../../platforms/port';
import { failed } from '../../platforms/validation-tests';
import { CHECKED_STATUSES, type IntegrationStatus } from '../lifecycle';
import { type IntegrationRecord, payloadOf } from '../model';
import { decryptedPayload, integrationOwner } from '../secrets';
import { clearHealthNotice, releaseCheckLease, takeCheckLease } from '../store/checks';
import { getIntegration, updateIntegration, type WriteCondition } from '../store/integrations';

/** How long one check may run: a remote that does not answer is a failed check naming it. */
export const checkTimeoutSeconds = () => intEnv('INTEGRATION_CHECK_TIMEOUT_SECONDS', 30);

/**
 * A check of what is registered under an integration, run after the type's own check inside the
 * same timeout and host lease (ADR 0016: data sources; the check consumer passes it, so this
 * capability imports none of the ones above it).
 */
export type AssuranceExtension = (
  record: IntegrationRecord,
  payload: RemotePayload,
  connector: PlatformConnector,
) => Promise<AssuranceResult>;

export type CheckOutcome =
  | { checked: false; reason: 'gone' | 'not checked in its status' | 'host busy' | 'changed meanwhile' }
  | { checked: true; status: IntegrationStatus; durationMs: number };

/** Thrown when the host's lease is held: the message is checked again after a short delay. */
export class HostBusyError extends Error {
  override name = 'HostBusyError';
}

/**
 * Checks one integration and records the result, unless it is in flight or changed while the
 * check ran (a PUT, DELETE or repair is newer than the check: the check never overwrites it).
 */
export async function checkIntegration(
  integrationId: number,
  round: string,
  extension?: AssuranceExtension,
): Promise<CheckOutcome> {
  const record = await getIntegration(integrationId);
  if (!record) return { checked: false, reason: 'gone' };
  if (!CHECKED_STATUSES.includes(record.status))
    return { checked: false, reason: 'not checked in its status' };
  const started = Date.now();
  const payload = (await decryptedPayload(payloadOf(record), integrationOwner(record.id))) as RemotePayload;
  const host = isRemoteType(record.type) ? hostOf(payload) : `integration-${record.id}`;
  const holder = randomUUID();
  if (!(await takeCheckLease(host, holder, checkTimeoutSeconds() + 30)))
    throw new HostBusyError(`host ${host} is being checked`);
  let result: AssuranceResult;
  try {
    result = await withCheckTimeout(() => assure(record, payload, extension));
  } finally {
    await releaseCheckLease(host, holder);
  }
  const recorded = await recordCheck(record, payload, result, round, {
    version: record.version,
    status: record.status,
  });
  if (!recorded) return { checked: false, reason: 'changed meanwhile' };
  const durationMs = Date.now() - started;
  logger.info('integration checked', {
    integrationId: record.id,
    status: recorded.status,
    durationMs,
    findings: result.findings.length,
  });
  return { checked: true, status: recorded.status, durationMs };
}

/**
 * Records a check's result on the integration, if it still matches `condition`: the status
 * (`enabled` when no test failed, else `recurringValidationError`, unless the integration is in
 * flight — a repair records its own check), the time, the findings and the tests. The integration
 * becomes failing (`healthFailedSince`) at its first failed check and healthy again at the first
 * passing one; each change sends its notification once.
 */
export async function recordCheck(
  record: IntegrationRecord,
  payload: RemotePayload,
  result: AssuranceResult,
  round: string,
  condition: WriteCondition,
): Promise<{ status: IntegrationStatus } | undefined> {
  const healthy = result.tests.every((t) => t.status !== 'failed');
  const status: IntegrationStatus = CHECKED_STATUSES.includes(record.status)
    ? healthy
      ? 'enabled'
      : 'recurringValidationError'
    : record.status;
  const at = new Date().toISOString();
  const notice =
    !healthy && !record.healthFailedSince
      ? 'healthCheckFailed'
      : healthy && record.healthFailedSince
        ? 'healthCheckResolved'
        : record.pendingHealthNotice;
  const failedNames = result.tests.filter((t) => t.status === 'failed').map((t) => t.name);
  const written = await updateIntegration(record.id, condition, {
    set: {
      status,
      lastCheckedAt: at,
      lastCheckRound: round,
      findings: result.findings,
      validationResults: summarize(result.tests),
      ...(healthy ? {} : { healthFailedSince: record.healthFailedSince ?? at }),
      ...(healthy || status !== 'recurringValidationError'
        ? {}
        : { statusMessage: `the periodic check failed: ${failedNames.join('; ')}` }),
      ...(notice ? { pendingHealthNotice: notice } : {}),
    },
    remove: [
      ...(healthy ? (['healthFailedSince'] as const) : []),
      ...(healthy && record.status === 'recurringValidationError' ? (['statusMessage'] as const) : []),
    ],
  });
  if (!written) return undefined;
  if (notice)
    await sendHealthNotice({ ...record, version: record.version + 1 }, notice, status, payload, result);
  return { status };
}

/** The type's assurance checks, or its validation tests for a type without a setup plan. */
async function assure(
  record: IntegrationRecord,
  payload: RemotePayload,
  extension?: AssuranceExtension,
): Promise<AssuranceResult> {
  if (!isRemoteType(record.type)) return { tests: [], findings: [] };
  const connector = await connectorFor(record.type);
  const own: AssuranceResult = connector.assure
    ? await connector.assure({ integrationId: record.id, payload })
    : {
        tests: await connector.validate({
          operation: 'edit',
          payload,
          previous: payload,
          integrationId: record.id,
        }),
        findings: [],
      };
  if (!extension) return own;
  const more = await extension(record, payload, connector);
  return { tests: [...own.tests, ...more.tests], findings: [...own.findings, ...more.findings] };
}

async function withCheckTimeout(run: () => Promise<AssuranceResult>): Promise<AssuranceResult> {
  const seconds = checkTimeoutSeconds();
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<AssuranceResult>((resolve) => {
    timer = setTimeout(
      () =>
        resolve({
          tests: [
            failed(
              'Assurance: Check Completed',
              `the check did not finish within ${seconds} s (the remote did not answer)`,
            ),
          ],
          findings: [],
        }),
      seconds * 1000,
    );
  });
  try {
    return await Promise.race([run(), timedOut]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Sends the health notification the check recorded, then clears it. Its id is the integration's
 * version, so a notification sent twice (a retried message) is delivered once.
 */
async function sendHealthNotice(
  record: IntegrationRecord,
  notice: NonNullable<IntegrationRecord['pendingHealthNotice']>,
  status: IntegrationStatus,
  payload: RemotePayload,
  result: AssuranceResult,
): Promise<void> {
  const failedTests = result.tests.filter((t) => t.status === 'failed');
  // Loaded here, not at init: the publisher builds the notification message schemas, needed only
  // when an integration enters or leaves `recurringValidationError` (docs/benchmarks.md, figure 5).
  const { publishNotification } = await import('../../notifications/publisher');
  await publishNotification({
    id: `integration-${record.id}-health-${record.version}`,
    notificationType: notice,
    text:
      notice === 'healthCheckFailed'
        ? `The periodic check of integration ${record.id} (${record.type}) failed: ${failedTests.map(describeTest).join('; ')}`
        : `The periodic check of integration ${record.id} (${record.type}) passes again.`,
    metadata: {
      modelId: record.id,
      modelType: 'integration',
      integrationId: record.id,
      integrationType: record.type,
      host: isRemoteType(record.type) ? hostOf(payload) : null,
      status,
      failedChecks: failedTests.map((t) => ({ name: t.name, message: t.message ?? '' })),
      findings: result.findings.map((f: AssuranceFinding) => ({ ...f })),
    },
  });
  await clearHealthNotice(record.id, notice);
}

const describeTest = (t: ValidationTest) => (t.message ? `${t.name} (${t.message})` : t.name);
