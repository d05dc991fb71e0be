/**
 * The stored shape of an integration. Configs are stored with defaults applied and every
 * secret field replaced by its ciphertext (`ConfigSecrets.seal`); plaintext secrets never reach
 * the table.
 */

import type { IntegrationType } from '../platforms';
import type { AssuranceFinding, PlatformPayload, ValidationResults } from '../platforms/port';
import type { InFlightStatus, IntegrationStatus, LifecycleOperation } from './lifecycle';

export type StoredConfig = Record<string, unknown>;

export interface IntegrationRecord {
  id: number;
  type: IntegrationType;
  /** Absent for FederatedSql. */
  autoBootstrap?: boolean;
  status: IntegrationStatus;
  /** Bumped on every write; status moves are conditional on it. */
  version: number;
  /** The configuration in effect (or, while creating, the one being created). Secrets encrypted. */
  config?: StoredConfig;
  /** An edit awaiting its workflow's outcome; becomes `config` only when the edit succeeds. */
  pendingConfig?: StoredConfig;
  /** Uniqueness claims this integration holds in the claims table. */
  claims: string[];
  validationResults?: ValidationResults;
  /** The operation in flight (or last run) and its request id (part of the execution name). */
  operation?: LifecycleOperation;
  requestId?: string;
  /** Set only while in flight: the sparse index the reconciler queries. */
  inFlightStatus?: InFlightStatus;
  operationStartedAt?: string;
  /** Reference to the sealed privileged credentials of a delete (transientSecrets table). */
  credentialsRef?: string;
  /**
   * The remote steps the operation in flight (or last run) carried out, by key (no secrets), and
   * those undone after it failed: a task that runs again resumes after them, and what a failed
   * undo left behind (applied, not undone) is what the cleanup script removes.
   */
  appliedSteps?: string[];
  undoneSteps?: string[];
  /** Why the remote work failed, kept while its undo is pending (a re-run task resumes the undo). */
  remoteFailure?: string;
  /** When the last periodic check ran, and what it found wrong (missing steps, privilege creep). */
  lastCheckedAt?: string;
  /** The round of the schedule (its start time) the last check belonged to. */
  lastCheckRound?: string;
  findings?: AssuranceFinding[];
  /** When the periodic checks started failing (cleared by the first passing check). */
  healthFailedSince?: string;
  /** A health notification to send (it was not sent yet when the check recorded the change). */
  pendingHealthNotice?: 'healthCheckFailed' | 'healthCheckResolved';
  /** Why the last operation failed (safe to show: never contains secrets). */
  statusMessage?: string;
  /** FederatedSql: SHA-256 of the cluster's API key (the key itself is shown once). */
  apiKeyHash?: string;
  apiKeyIssuedAt?: string;
  createdAt: string;
  updatedAt: string;
  /**
   * Data sources registered under the integration (ADR 0016; absent = 0). Written only by the
   * data-source transactions (`shared/data-sources/store.ts`), which also bump `version`.
   */
  dataSourceCount?: number;
}

/** The payload of a stored integration with one of its configs (secrets as stored: encrypted). */
export function payloadOf(
  record: IntegrationRecord,
  config: StoredConfig | undefined = record.config,
): PlatformPayload {
  return { type: record.type, autoBootstrap: record.autoBootstrap, config } as PlatformPayload;
}

/** Execution names allow 80 characters of [A-Za-z0-9-_]; a uuid request id keeps it unique. */
export function executionName(integrationId: number, requestId: string): string {
  return `integration-${integrationId}-${requestId}`.replace(/[^A-Za-z0-9_-]/g, '-').slice(0, 80);
}

/** The setup steps the last periodic check found missing (a repair re-runs them). */
export function missingStepsOf(record: Pick<IntegrationRecord, 'findings'>): string[] {
  return (record.findings ?? []).flatMap((f) => (f.kind === 'missing' && f.step ? [f.step] : []));
}

/** Steps a failed create or edit carried out that its undo did not take back. */
export function leftoverSteps(record: Pick<IntegrationRecord, 'appliedSteps' | 'undoneSteps'>): string[] {
  const undone = new Set(record.undoneSteps ?? []);
  return (record.appliedSteps ?? []).filter((s) => !undone.has(s));
}
