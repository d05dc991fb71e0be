/**
 * The platform connector function (internal, invoked with Lambda Invoke by API functions):
 * decrypts the request's secrets and runs, through `connectorFor` (inside the egress guard), the
 * type's validation tests (`validate` → `{validationTests}`) or the existence check of data-source
 * paths (`locate` → `{located}`, ADR 0016). It is the only function that loads platform drivers
 * for API routes. Configs and credentials are never logged.
 */
import type { Context } from 'aws-lambda';
import { decryptedPayload, type SecretOwner, secretsOf } from '../../shared/integrations/secrets';
import { describeError, logger } from '../../shared/observability/logger';
import { connectorFor } from '../../shared/platforms/connectors';
import type { ValidateRequest } from '../../shared/platforms/port';
import type {
  ConnectorInvocation,
  ConnectorResponse,
  LocateResponse,
  SealedLocateRequest,
  SealedValidateRequest,
} from '../../shared/platforms/remote';

async function validate(sealed: SealedValidateRequest, context?: Context): Promise<ConnectorResponse> {
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

async function locate(sealed: SealedLocateRequest, context?: Context): Promise<LocateResponse> {
  const payload = await decryptedPayload(sealed.payload, sealed.sealedFor as SecretOwner);
  const connector = await connectorFor(payload.type);
  if (!connector.locate) throw new Error(`the ${payload.type} connector cannot locate paths`);
  const located = await connector.locate({
    payload,
    paths: sealed.paths,
    integrationId: sealed.integrationId,
  });
  logger.info('located', {
    type: payload.type,
    integrationId: sealed.integrationId,
    requestId: context?.awsRequestId,
    paths: located.length,
    missing: located.filter((l) => 'found' in l && !l.found).length,
    unchecked: located.filter((l) => 'error' in l).length,
  });
  return { located };
}

async function run(
  event: ConnectorInvocation,
  context?: Context,
): Promise<ConnectorResponse | LocateResponse> {
  if (event?.action === 'validate') return validate(event.request, context);
  if (event?.action === 'locate') return locate(event.request, context);
  throw new Error('unsupported connector action');
}

/**
 * Unexpected failures are logged with a scrubbed message and re-thrown by name only: the Lambda
 * runtime would otherwise log the raw message (a driver error can quote a connection string).
 * Remote failures never get here: connectors report them as failed validation tests or paths.
 */
export async function handler(
  event: ConnectorInvocation,
  context?: Context,
): Promise<ConnectorResponse | LocateResponse> {
  try {
    return await run(event, context);
  } catch (error) {
    logger.error('connector failed', describeError(error));
    throw new Error(`the platform connector failed (${error instanceof Error ? error.name : 'Error'})`);
  }
}
