/**
 * The platform connector function (internal, invoked with Lambda Invoke by API functions):
 * decrypts the request's secrets, runs the type's validation tests through `connectorFor`, and
 * answers `{validationTests}`. It is the only function that loads platform drivers for
 * validation. Configs and credentials are never logged.
 */
import type { Context } from 'aws-lambda';
import { decryptedPayload, type SecretOwner, secretsOf } from '../../shared/integrations/secrets';
import { describeError, logger } from '../../shared/observability/logger';
import { connectorFor } from '../../shared/platforms/connectors';
import type { ValidateRequest } from '../../shared/platforms/port';
import type { ConnectorInvocation, ConnectorResponse } from '../../shared/platforms/remote';

async function validate(event: ConnectorInvocation, context?: Context): Promise<ConnectorResponse> {
  if (event?.action !== 'validate') throw new Error('unsupported connector action');
  const sealed = event.request;
  const owner = sealed.sealedFor as SecretOwner;
  const secrets = secretsOf(sealed.payload);
  const request: ValidateRequest = {
    operation: sealed.operation,
    payload: await decryptedPayload(sealed.payload, owner, secrets),
    ...(sealed.previous ? { previous: await decryptedPayload(sealed.previous, owner) } : {}),
    ...(sealed.sealedCredentials && sealed.integrationId !== undefined
      ? {
          privilegedCredentials: await secrets.openCredentials(
            sealed.sealedCredentials,
            sealed.integrationId,
          ),
        }
      : {}),
    ...(sealed.integrationId !== undefined ? { integrationId: sealed.integrationId } : {}),
    ...(sealed.leftovers ? { leftovers: sealed.leftovers } : {}),
  };
  const connector = await connectorFor(request.payload.type);
  const validationTests = await connector.validate(request);
  logger.info('validated', {
    type: request.payload.type,
    operation: request.operation,
    requestId: context?.awsRequestId,
    failed: validationTests.filter((t) => t.status === 'failed').map((t) => t.name),
  });
  return { validationTests };
}

/**
 * Unexpected failures are logged with a scrubbed message and re-thrown by name only: the Lambda
 * runtime would otherwise log the raw message (a driver error can quote a connection string).
 * Remote failures never get here: connectors report them as failed validation tests.
 */
export async function handler(event: ConnectorInvocation, context?: Context): Promise<ConnectorResponse> {
  try {
    return await validate(event, context);
  } catch (error) {
    logger.error('connector failed', describeError(error));
    throw new Error(`the platform connector failed (${error instanceof Error ? error.name : 'Error'})`);
  }
}
