/**
 * Calling the platform connector function from API functions. Validation needs the platform
 * drivers, which are too heavy for API bundles, so API functions invoke the `platformConnector`
 * internal function synchronously (Lambda Invoke; the local cloud serves the same API).
 * Payloads travel with their secrets encrypted (`encryptSecrets`, `sealCredentials`); only the
 * connector function decrypts them.
 */
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { functionEnvVar } from '../../infra/catalog/functions';
import { requireEnv } from '../config/env';
import type { ValidateRequest, ValidationTest } from './port';

/** A ValidateRequest whose configs hold ciphertext secrets and whose credentials are sealed. */
export interface SealedValidateRequest extends Omit<ValidateRequest, 'privilegedCredentials'> {
  sealedCredentials?: string;
}

export interface ConnectorInvocation {
  action: 'validate';
  request: SealedValidateRequest;
}

export interface ConnectorResponse {
  validationTests: ValidationTest[];
}

export class ConnectorInvocationError extends Error {
  override name = 'ConnectorInvocationError';
}

const lambda = new LambdaClient({});

export async function validateRemotely(request: SealedValidateRequest): Promise<ValidationTest[]> {
  const payload: ConnectorInvocation = { action: 'validate', request };
  const out = await lambda.send(
    new InvokeCommand({
      FunctionName: requireEnv(functionEnvVar('platformConnector')),
      InvocationType: 'RequestResponse',
      Payload: new TextEncoder().encode(JSON.stringify(payload)),
    }),
  );
  const text = out.Payload ? new TextDecoder().decode(out.Payload) : '';
  if (out.FunctionError) {
    // The connector's own error text is not shown to callers (it could quote remote details).
    throw new ConnectorInvocationError(`the platform connector failed (${out.FunctionError})`);
  }
  const response = JSON.parse(text) as ConnectorResponse;
  return response.validationTests;
}
