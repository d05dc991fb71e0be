/**
 * HTTP API Lambda request authorizer (simple responses). It authenticates the API key and
 * hands the principal to the route in the authorizer context; it does not decide routes.
 * Unknown or revoked keys are passed on as unauthenticated so the handler answers 401 with the
 * service's error shape (an HTTP API authorizer can only deny with a bare 403). Authorization
 * per route happens in the handler middleware (`shared/edge/handler.ts`), so a cached answer
 * for one route can never open another.
 */
import type {
  APIGatewayRequestAuthorizerEventV2,
  APIGatewaySimpleAuthorizerWithContextResult,
} from 'aws-lambda';
import { authenticate } from '../shared/auth/keys';
import { type AuthorizerContext, contextFromPrincipal } from '../shared/auth/permissions';
import { logger } from '../shared/observability/logger';
import { recordAuthDenial } from '../shared/observability/metrics';

export async function handler(
  event: APIGatewayRequestAuthorizerEventV2,
): Promise<APIGatewaySimpleAuthorizerWithContextResult<AuthorizerContext>> {
  const authorization = event.headers?.authorization ?? event.headers?.Authorization;
  const result = await authenticate(authorization);
  if (!result.ok) {
    logger.info('authentication failed', { reason: result.reason, routeKey: event.routeKey });
    recordAuthDenial(result.failure);
    return { isAuthorized: true, context: { authenticated: false, reason: result.reason } };
  }
  return { isAuthorized: true, context: contextFromPrincipal(result.principal) };
}
