/**
 * What callers see of an integration: ids as strings (the status route uses numbers), the
 * stored config with defaults applied and every secret replaced by the redaction placeholder.
 * Pending edits, claims, request ids and key hashes are internal and never shown.
 */

import type { IntegrationRecord } from '../model';
import { secretsOf } from '../secrets';
import type { IntegrationResponse, IntegrationStatusResponse } from './contracts';

export async function presentIntegration(record: IntegrationRecord): Promise<IntegrationResponse> {
  return {
    id: String(record.id),
    status: record.status,
    type: record.type,
    ...(record.autoBootstrap === undefined ? {} : { autoBootstrap: record.autoBootstrap }),
    ...(record.config ? { config: await secretsOf(record).redact() } : {}),
    ...(record.validationResults ? { validationResults: record.validationResults } : {}),
    ...(record.statusMessage ? { statusMessage: record.statusMessage } : {}),
    ...(record.lastCheckedAt ? { lastCheckedAt: record.lastCheckedAt } : {}),
    ...(record.findings ? { findings: record.findings } : {}),
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
  };
}

export function presentStatus(record: IntegrationRecord): IntegrationStatusResponse {
  return {
    id: record.id,
    status: record.status,
    ...(record.statusMessage ? { statusMessage: record.statusMessage } : {}),
  };
}
