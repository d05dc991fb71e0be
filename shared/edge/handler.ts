/**
 * The one edge every API route goes through. A route module supplies its contract and its
 * business logic only:
 *
 *   export const handler = apiHandler(webhookContracts['GET /webhooks/{id}'], async ({ principal, params }) =>
 *     ({ body: await getWebhook(principal, params.id) }));
 *
 * Before the logic runs, the middy stack normalises headers, authenticates and authorizes from
 * the route table row that matches `event.routeKey` (so a cached authorizer answer can never
 * open an admin route to a non-admin), decodes the body in a format the contract accepts, and
 * validates path, query and body against the contract's zod schemas — the same objects the
 * OpenAPI document is built from. The logic receives typed values. Every thrown error is mapped
 * to `{statusCode, error, message}` in one place (`./errors.ts`).
 */
import middy from '@middy/core';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import type { APIGatewayProxyEventV2WithLambdaAuthorizer, Context } from 'aws-lambda';
import type * as z from 'zod/mini';
import { type AuthorizerContext, isAdmin, type Principal, principalFromContext } from '../auth/permissions';
import type { RouteContract } from '../catalog/contract';
import { findRoute, type RouteDef } from '../catalog/routes';
import { InvalidInputError, NotAuthenticatedError, NotFoundError, NotPermittedError } from '../errors';
import { describeError, logger } from '../observability/logger';
import { describeIssues } from '../validation';
import { decodeBody, JSON_BODY } from './body';
import { preferredMediaType } from './content-negotiation';
import { errorHeaders, knownErrorBody } from './errors';
import { type ApiResponse, errorBody, jsonResponse, SECURITY_HEADERS } from './response';

export type ApiEvent = APIGatewayProxyEventV2WithLambdaAuthorizer<Partial<AuthorizerContext>>;

type Parsed<S, Fallback> = S extends z.ZodMiniType ? z.output<S> : Fallback;

/** What the route's logic receives: the caller and the request, validated against the contract. */
export interface ApiRequest<C extends RouteContract = RouteContract> {
  event: ApiEvent;
  route: RouteDef;
  /** Present on every route whose `auth` is not `public`. */
  principal: Principal;
  params: Parsed<C['params'], Record<string, string>>;
  query: Parsed<C['query'], Record<string, string>>;
  /** The validated body; undefined when the contract takes none, or it is optional and absent. */
  body: C['body'] extends z.ZodMiniType
    ? C extends { bodyRequired: false }
      ? z.output<C['body']> | undefined
      : z.output<C['body']>
    : undefined;
  /** Header names in lower case. */
  headers: Record<string, string>;
}

export interface ApiResult {
  statusCode?: number;
  /** Objects are sent as JSON; strings as-is with `contentType`. */
  body?: unknown;
  contentType?: string;
  /**
   * The same answer in other media types the route's contract lists (`contentTypes` of its
   * success response); the edge sends the one the caller's Accept header prefers, JSON otherwise.
   */
  representations?: Record<string, string>;
  headers?: Record<string, string>;
}

function errorResponse(error: unknown): ApiResponse {
  const known = knownErrorBody(error);
  if (known) return jsonResponse(known.statusCode, known, errorHeaders(error));
  // Never leak internals: log the error's name and a scrubbed message, answer generically.
  logger.error('unhandled error', describeError(error));
  return jsonResponse(500, errorBody(500, 'internal error'));
}

/** The media types a route answers in (its success responses'), JSON first when it has JSON. */
function answerMediaTypes(contract: RouteContract): string[] {
  const types = Object.entries(contract.responses)
    .filter(([status]) => Number(status) < 300)
    .flatMap(([, r]) => r.contentTypes ?? ['application/json']);
  return [...new Set(types)];
}

/**
 * The answer in the representation the caller's Accept header prefers among the route's media
 * types (JSON when none is preferred, on ties and by default; a type the route does not offer
 * gets JSON rather than a 406).
 */
function negotiated(
  result: ApiResult | undefined,
  offered: string[],
  accept: string | undefined,
): ApiResult | undefined {
  if (!result?.representations || offered.length < 2) return result;
  const preferred = preferredMediaType(accept, offered);
  const text = preferred === undefined ? undefined : result.representations[preferred];
  if (text === undefined || preferred === undefined) return result;
  return {
    ...result,
    body: text,
    contentType: preferred.startsWith('text/') ? `${preferred}; charset=utf-8` : preferred,
  };
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
  if (!principal) throw new NotAuthenticatedError(event.requestContext.authorizer?.lambda?.reason);
  if (route.auth === 'admin' && !isAdmin(principal)) throw new NotPermittedError();
  return principal;
}

/**
 * Parses one part of the request. Issues name their field: `path.<name>`, `query.<name>`, and
 * body fields by their path inside the body (`config.host`).
 */
function validated(
  schema: z.ZodMiniType | undefined,
  value: unknown,
  part: 'path' | 'query' | 'body',
): unknown {
  if (!schema) return value;
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const described =
    part === 'body'
      ? describeIssues(result.error.issues)
      : describeIssues(result.error.issues, { root: part, prefix: `${part}.` });
  throw new InvalidInputError(`invalid ${part === 'body' ? 'request body' : part}: ${described}`);
}

function definedValues(record: Record<string, string | undefined> | undefined): Record<string, string> {
  return Object.fromEntries(
    Object.entries(record ?? {}).filter((e): e is [string, string] => e[1] !== undefined),
  );
}

export type ApiHandler<C extends RouteContract> = middy.MiddyfiedHandler<ApiEvent, ApiResponse> & {
  /** The contract this handler validates against (a test checks it is the route's cataloged one). */
  readonly contract: C;
};

export function apiHandler<const C extends RouteContract>(
  contract: C,
  fn: (request: ApiRequest<C>, context: Context) => Promise<ApiResult | undefined>,
): ApiHandler<C> {
  const formats = contract.bodyFormats ?? [JSON_BODY];
  const mediaTypes = answerMediaTypes(contract);
  const handler = middy<ApiEvent, ApiResponse>()
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
      const params = validated(contract.params, definedValues(event.pathParameters), 'path');
      const query = validated(contract.query, definedValues(event.queryStringParameters), 'query');
      const decoded = await decodeBody(event.body, event.isBase64Encoded, headers['content-type'], formats);
      if (contract.body && decoded === undefined && contract.bodyRequired !== false)
        throw new InvalidInputError('a request body is required');
      const body =
        contract.body && decoded !== undefined ? validated(contract.body, decoded, 'body') : undefined;
      const request = {
        event,
        route,
        get principal(): Principal {
          // Only public routes have no principal, and they must not ask for one.
          if (!principal) throw new NotAuthenticatedError();
          return principal;
        },
        params,
        query,
        body,
        headers,
      } as ApiRequest<C>;
      return toResponse(negotiated(await fn(request, context), mediaTypes, headers.accept));
    });
  return Object.assign(handler, { contract });
}
