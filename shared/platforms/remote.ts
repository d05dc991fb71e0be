/**
 * Calling the platform connector function from API functions. Validation needs the platform
 * drivers, which are too heavy for API bundles, so API functions invoke the `platformConnector`
 * internal function synchronously (Lambda Invoke; the local cloud serves the same API).
 * Payloads travel with their secrets encrypted (`ConfigSecrets.seal`, `.sealCredentials`),
 * sealed for their owner and connection; only the connector function decrypts them.
 */
import { InternalInvocationError, invokeInternal } from '../store/internal-functions';
import type { LocatedPath, LocateRequest, ValidateRequest, ValidationTest } from './port';

/** A ValidateRequest whose configs hold ciphertext secrets and whose credentials are sealed. */
export interface SealedValidateRequest extends Omit<ValidateRequest, 'privilegedCredentials'> {
  /**
   * Whom the configs' secrets are sealed for (`shared/integrations/secrets.ts`): the integration,
   * or a create request's own owner before the integration exists.
   */
  sealedFor: string;
  sealedCredentials?: string;
}

/** A LocateRequest whose config holds ciphertext secrets (ADR 0016: data-source existence). */
export interface SealedLocateRequest extends LocateRequest {
  sealedFor: string;
}

export type ConnectorInvocation =
  | { action: 'validate'; request: SealedValidateRequest }
  | { action: 'locate'; request: SealedLocateRequest };

export interface ConnectorResponse {
  validationTests: ValidationTest[];
}

export interface LocateResponse {
  located: LocatedPath[];
}

/** The connector function failed to run (its own error text is not shown to callers). */
export { InternalInvocationError as ConnectorInvocationError };

export async function validateRemotely(request: SealedValidateRequest): Promise<ValidationTest[]> {
  const payload: ConnectorInvocation = { action: 'validate', request };
  const response = await invokeInternal<ConnectorResponse>('platformConnector', payload);
  return response.validationTests;
}

/** Whether each path exists in the integration's remote, through its own connection. */
export async function locateRemotely(request: SealedLocateRequest): Promise<LocatedPath[]> {
  const payload: ConnectorInvocation = { action: 'locate', request };
  const response = await invokeInternal<LocateResponse>('platformConnector', payload);
  return response.located;
}
