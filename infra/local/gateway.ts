/**
 * The local HTTP gateway: serves every route of the route table the way API Gateway (HTTP API,
 * payload format 2.0) does — run the Lambda authorizer (identity source: the Authorization
 * header), then the route's handler with a v2 event — and answers unmatched requests with the
 * same `$default` function CDK deploys. Bodies over the Lambda payload limit get a 413.
 */
import { isUtf8 } from 'node:buffer';
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type {
  APIGatewayProxyEventV2,
  APIGatewayProxyStructuredResultV2,
  APIGatewayRequestAuthorizerEventV2,
  APIGatewaySimpleAuthorizerWithContextResult,
} from 'aws-lambda';
import { AUTHORIZER_ACCESS, AUTHORIZER_HANDLER, DEFAULT_ROUTE_HANDLER } from '../../shared/catalog/handlers';
import { routeAccess } from '../../shared/catalog/route-access';
import { type RouteDef, routeFunctionId, routeKey } from '../../shared/catalog/routes';
import { errorBody } from '../../shared/edge/response';
import { matchRoute } from '../../shared/edge/route-match';
import { serveConsole } from './console';
import { SERVICE_ACCOUNT } from './customer-account/account';
import { invoke } from './lambda';
import { IDLE_KEEP_ALIVE_MS } from './ports';

/** Lambda's synchronous invocation payload limit; API Gateway would refuse larger bodies. */
const MAX_BODY_BYTES = 6 * 1024 * 1024;

export interface GatewayOptions {
  prefix: string;
  authorizerCacheSeconds: number;
  /** Called with every request's outcome (for the access log). */
  onRequest?: (line: { method: string; path: string; status: number; ms: number }) => void;
  /** How long `close()` lets requests in flight finish before cutting their connections. */
  drainMs?: number;
}

/** Below main.ts's 15 s forced exit, above the default handler timeout of 10 s. */
const DEFAULT_DRAIN_MS = 12_000;

export class LocalGateway {
  private server: Server | undefined;
  private inFlight = 0;
  private closing = false;
  private drained: (() => void) | undefined;
  private readonly authCache = new Map<
    string,
    { expires: number; result: APIGatewaySimpleAuthorizerWithContextResult<Record<string, unknown>> }
  >();

  constructor(private readonly options: GatewayOptions) {}

  async listen(port: number): Promise<string> {
    this.server = createServer((req, res) => {
      const started = Date.now();
      this.inFlight++;
      // While draining, answered connections are not kept alive for further requests.
      if (this.closing) res.setHeader('connection', 'close');
      res.once('close', () => {
        this.inFlight--;
        if (this.inFlight === 0) this.drained?.();
      });
      this.handle(req, res)
        .catch(() => send(res, { statusCode: 500, body: JSON.stringify(errorBody(500, 'internal error')) }))
        .finally(() =>
          this.options.onRequest?.({
            method: req.method ?? '',
            path: req.url ?? '',
            status: res.statusCode,
            ms: Date.now() - started,
          }),
        );
    });
    this.server.keepAliveTimeout = IDLE_KEEP_ALIVE_MS;
    await new Promise<void>((resolve, reject) => {
      this.server?.once('error', reject);
      this.server?.listen(port, '127.0.0.1', resolve);
    });
    const address = this.server.address();
    if (!address || typeof address !== 'object') throw new Error('gateway has no address');
    return `http://127.0.0.1:${address.port}`;
  }

  /**
   * Stops accepting connections, lets requests in flight finish (up to `drainMs`), then closes
   * every connection that is left.
   */
  async close(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.closing = true;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    if (this.inFlight > 0) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        new Promise<void>((resolve) => {
          this.drained = resolve;
        }),
        new Promise<void>((resolve) => {
          timer = setTimeout(resolve, this.options.drainMs ?? DEFAULT_DRAIN_MS);
        }),
      ]);
      clearTimeout(timer);
    }
    server.closeAllConnections();
    await closed;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const method = (req.method ?? 'GET').toUpperCase();
    if (await serveConsole(method, url.pathname, res)) return;
    const body = await readBody(req, MAX_BODY_BYTES);
    if (body === 'too-large') {
      send(res, {
        statusCode: 413,
        body: JSON.stringify(errorBody(413, `request body exceeds the limit of ${MAX_BODY_BYTES} bytes`)),
      });
      return;
    }
    const matched = matchRoute(method, url.pathname);
    const event = this.event(req, url, method, body, matched?.route, matched?.params);
    if (!matched) {
      const result = await invoke<APIGatewayProxyStructuredResultV2>(
        {
          handler: DEFAULT_ROUTE_HANDLER,
          name: `${this.options.prefix}-Default`,
          timeoutSeconds: 10,
          access: {},
        },
        event,
      );
      send(res, result);
      return;
    }
    const { route } = matched;
    if (route.auth !== 'public') {
      const authorization = event.headers.authorization;
      if (!authorization) {
        // API Gateway answers a missing identity source itself, without calling the authorizer.
        send(res, {
          statusCode: 401,
          body: JSON.stringify(errorBody(401, 'a valid API key is required in the Authorization header')),
        });
        return;
      }
      const auth = await this.authorize(authorization, event);
      if (!auth.isAuthorized) {
        send(res, { statusCode: 403, body: JSON.stringify(errorBody(403, 'forbidden')) });
        return;
      }
      event.requestContext = {
        ...event.requestContext,
        authorizer: { lambda: auth.context },
      } as typeof event.requestContext;
    }
    const result = await invoke<APIGatewayProxyStructuredResultV2>(
      {
        handler: route.handler,
        name: `${this.options.prefix}-${routeFunctionId(route)}`,
        timeoutSeconds: route.timeoutSeconds ?? 10,
        access: routeAccess(route),
      },
      event,
    ).catch((error: Error) => {
      if (error.name === 'Sandbox.Timedout') {
        return { statusCode: 503, body: JSON.stringify(errorBody(503, 'the function timed out')) };
      }
      return { statusCode: 500, body: JSON.stringify(errorBody(500, 'internal error')) };
    });
    send(res, result);
  }

  private async authorize(authorization: string, event: APIGatewayProxyEventV2) {
    const ttl = this.options.authorizerCacheSeconds * 1000;
    const cached = ttl > 0 ? this.authCache.get(authorization) : undefined;
    if (cached && cached.expires > Date.now()) return cached.result;
    const authEvent: APIGatewayRequestAuthorizerEventV2 = {
      version: '2.0',
      type: 'REQUEST',
      routeArn: `arn:aws:execute-api:us-east-1:000000000000:local/$default/${event.requestContext.http.method}${event.rawPath}`,
      identitySource: [authorization],
      routeKey: event.routeKey,
      rawPath: event.rawPath,
      rawQueryString: event.rawQueryString,
      cookies: event.cookies ?? [],
      headers: event.headers as Record<string, string>,
      queryStringParameters: (event.queryStringParameters ?? {}) as Record<string, string>,
      requestContext: event.requestContext,
      pathParameters: (event.pathParameters ?? {}) as Record<string, string>,
      stageVariables: {},
    };
    const result = await invoke<APIGatewaySimpleAuthorizerWithContextResult<Record<string, unknown>>>(
      {
        handler: AUTHORIZER_HANDLER,
        name: `${this.options.prefix}-Authorizer`,
        timeoutSeconds: 10,
        access: AUTHORIZER_ACCESS,
      },
      authEvent,
    );
    if (ttl > 0) this.authCache.set(authorization, { expires: Date.now() + ttl, result });
    return result;
  }

  private event(
    req: IncomingMessage,
    url: URL,
    method: string,
    body: Buffer,
    route: RouteDef | undefined,
    params: Record<string, string> | undefined,
  ): APIGatewayProxyEventV2 {
    const headers: Record<string, string> = {};
    const cookies: string[] = [];
    for (const [name, value] of Object.entries(req.headers)) {
      if (value === undefined) continue;
      if (name === 'cookie') cookies.push(...String(value).split(/;\s*/));
      else headers[name] = Array.isArray(value) ? value.join(',') : value;
    }
    const query: Record<string, string> = {};
    for (const [k, v] of url.searchParams) query[k] = k in query ? `${query[k]},${v}` : v;
    const now = new Date();
    // API Gateway passes a body that is not UTF-8 text base64-encoded. Validated in place, not
    // decoded and encoded again to compare: bodies of megabytes are common in the hostile tests.
    const binary = body.length > 0 && !isUtf8(body);
    const text = binary ? '' : body.toString('utf8');
    return {
      version: '2.0',
      routeKey: route ? routeKey(route) : '$default',
      rawPath: url.pathname,
      rawQueryString: url.search.slice(1),
      cookies: cookies.length ? cookies : undefined,
      headers,
      queryStringParameters: Object.keys(query).length ? query : undefined,
      pathParameters: params && Object.keys(params).length ? params : undefined,
      requestContext: {
        accountId: SERVICE_ACCOUNT,
        apiId: 'local',
        domainName: headers.host ?? '127.0.0.1',
        domainPrefix: 'local',
        http: {
          method,
          path: url.pathname,
          protocol: `HTTP/${req.httpVersion}`,
          sourceIp: req.socket.remoteAddress ?? '127.0.0.1',
          userAgent: headers['user-agent'] ?? '',
        },
        requestId: randomUUID(),
        routeKey: route ? routeKey(route) : '$default',
        stage: '$default',
        time: now.toISOString(),
        timeEpoch: now.getTime(),
      },
      body: body.length ? (binary ? body.toString('base64') : text) : undefined,
      isBase64Encoded: binary,
    };
  }
}

/** Reads the body up to `limit`; past it, drains the rest without keeping it. */
async function readBody(req: IncomingMessage, limit: number): Promise<Buffer | 'too-large'> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size <= limit) chunks.push(chunk as Buffer);
  }
  return size > limit ? 'too-large' : Buffer.concat(chunks);
}

function send(res: ServerResponse, result: APIGatewayProxyStructuredResultV2): void {
  if (res.headersSent) return;
  const body =
    result.body === undefined
      ? undefined
      : result.isBase64Encoded
        ? Buffer.from(result.body, 'base64')
        : Buffer.from(result.body);
  const headers: Record<string, string | number> = { 'apigw-requestid': randomUUID() };
  for (const [k, v] of Object.entries(result.headers ?? {})) headers[k.toLowerCase()] = String(v);
  if (body && !headers['content-type']) headers['content-type'] = 'application/json';
  if (body) headers['content-length'] = body.length;
  res.writeHead(result.statusCode ?? 200, headers);
  res.end(body);
}
