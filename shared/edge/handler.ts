/**
 * The middy stack every API route uses. A route module supplies only its business logic:
 *
 *   export const handler = apiHandler(async ({ principal, body, params }) => ({ body: ... }));
 *
 * The stack normalises headers, authenticates and authorizes from the route table row that
 * matches `event.routeKey` (so a cached authorizer answer can never open an admin route to a
 * non-admin), decodes the body (JSON, or YAML where the route accepts it), and maps every
 * thrown error to `{statusCode, error, message}` in one place.
 */
import middy from '@middy/core';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import type {
  APIGatewayProxyEventV2WithLambdaAuthorizer,
  APIGatewayProxyStructuredResultV2,
  Context,
} from 'aws-lambda';
import { type AuthorizerContext, isAdmin, type Principal, principalFromContext } from '../auth/permissions';
import { findRoute, type RouteDef } from '../catalog/routes';
import { type BodyFormat, decodeBody, JSON_BODY } from './body';
import { ForbiddenError, HttpError, NotFoundError, statusText, UnauthorizedError } from './errors';
import { describeError, logger } from './logger';

export type ApiEvent = APIGatewayProxyEventV2WithLambdaAuthorizer<Partial<AuthorizerContext>>;
export type ApiResponse = APIGatewayProxyStructuredResultV2;

export interface ApiRequest {
  event: ApiEvent;
  route: RouteDef;
  /** Present on every route whose `auth` is not `public`. */
  principal: Principal;
  /** Decoded body (undefined when empty); validate it with a zod schema. */
  body: unknown;
  params: Record<string, string>;
  query: Record<string, string>;
  headers: Record<string, string>;
}

export interface ApiResult {
  statusCode?: number;
  /** Objects are sent as JSON; strings as-is with `contentType`. */
  body?: unknown;
  contentType?: string;
  headers?: Record<string, string>;
}

export interface ApiHandlerOptions {
  /** Body formats the route accepts (default JSON only). */
  bodyFormats?: readonly BodyFormat[];
}

const SECURITY_HEADERS = {
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
};

export function jsonResponse(
  statusCode: number,
  body: unknown,
  headers: Record<string, string> = {},
): ApiResponse {
  return {
    statusCode,
    headers: { 'content-type': 'application/json', ...SECURITY_HEADERS, ...headers },
    body: JSON.stringify(body),
  };
}

export function errorResponse(error: unknown): ApiResponse {
  if (error instanceof HttpError) return jsonResponse(error.statusCode, error.toBody());
  // Never leak internals: log the error's name and a scrubbed message, answer generically.
  logger.error('unhandled error', describeError(error));
  return jsonResponse(500, { statusCode: 500, error: statusText(500), message: 'internal error' });
}

function toResponse(result: ApiResult | undefined): ApiResponse {
  const statusCode = result?.statusCode ?? (result?.body === undefined ? 204 : 200);
  if (result?.body === undefined) return { statusCode, headers: { ...SECURITY_HEADERS, ...result?.headers } };
  if (typeof result.body === 'string' && result.contentType) {
    return {
      statusCode,
      headers: { 'content-type': result.contentType, ...SECURITY_HEADERS, ...result.headers },
      body: result.body,
    };
  }
  return jsonResponse(statusCode, result.body, result.headers);
}

function authorize(route: RouteDef, event: ApiEvent): Principal | undefined {
  if (route.auth === 'public') return undefined;
  const principal = principalFromContext(event.requestContext.authorizer?.lambda);
  if (!principal) throw new UnauthorizedError(event.requestContext.authorizer?.lambda?.reason);
  if (route.auth === 'admin' && !isAdmin(principal)) throw new ForbiddenError();
  return principal;
}

export function apiHandler(
  fn: (request: ApiRequest, context: Context) => Promise<ApiResult | undefined>,
  options: ApiHandlerOptions = {},
) {
  const formats = options.bodyFormats ?? [JSON_BODY];
  return middy<ApiEvent, ApiResponse>()
    .use(httpHeaderNormalizer())
    .use({
      onError: (request) => {
        request.response = errorResponse(request.error);
      },
    })
    .handler(async (event, context) => {
      const route = findRoute(event.routeKey);
      if (!route) throw new NotFoundError(`no route ${event.routeKey}`);
      const principal = authorize(route, event);
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries((event.headers ?? {}) as Record<string, string | undefined>)) {
        if (typeof v === 'string') headers[k.toLowerCase()] = v;
      }
      const body = decodeBody(event.body, event.isBase64Encoded, headers['content-type'], formats);
      const request: ApiRequest = {
        event,
        route,
        get principal(): Principal {
          // Only public routes have no principal, and they must not ask for one.
          if (!principal) throw new UnauthorizedError();
          return principal;
        },
        body,
        params: definedValues(event.pathParameters),
        query: definedValues(event.queryStringParameters),
        headers,
      };
      return toResponse(await fn(request, context));
    });
}

function definedValues(record: Record<string, string | undefined> | undefined): Record<string, string> {
  return Object.fromEntries(
    Object.entries(record ?? {}).filter((e): e is [string, string] => e[1] !== undefined),
  );
}
