/** Helpers the integrations route handlers share: query flags, service URL, result mapping. */
import type { ApiRequest, ApiResult } from '../edge/handler';
import { parseWith } from '../edge/validation';
import { DeleteQuerySchema, DryRunQuerySchema } from './api';
import type { Accepted, DryRunResult } from './service';

export function dryRunQuery(req: ApiRequest): { dryRun: boolean } {
  return parseWith(DryRunQuerySchema, req.query, 'query');
}

export function deleteQuery(req: ApiRequest): { dryRun: boolean; forceDisable: boolean } {
  return parseWith(DeleteQuerySchema, req.query, 'query');
}

/** The base URL callers reached the service on (written into the FederatedSql snippet). */
export function serviceUrl(req: ApiRequest): string {
  const host = req.event.requestContext.domainName || req.headers.host || 'localhost';
  const local = /^(127\.0\.0\.1|localhost|\[::1\])(:\d+)?$/.test(host);
  const proto = req.headers['x-forwarded-proto'] ?? (local ? 'http' : 'https');
  return `${proto}://${host}`;
}

/**
 * Dry runs answer 200 with the validation results; accepted asynchronous operations answer 202
 * (a force-disable, which finishes at once, answers 200).
 */
export function operationResult(result: DryRunResult | Accepted): ApiResult {
  if (result.dryRun) return { statusCode: 200, body: { validationResults: result.validationResults } };
  return { statusCode: result.response.status === 'disabled' ? 200 : 202, body: result.response };
}
