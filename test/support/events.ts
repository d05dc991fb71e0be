import type { Context } from 'aws-lambda';
import type { ApiEvent } from '../../shared/edge/handler';

/** A minimal API Gateway v2 event for unit-testing handlers without the gateway. */
export function apiEvent(
  routeKey: string,
  options: { authorizer?: Record<string, unknown>; body?: string; headers?: Record<string, string> } = {},
): ApiEvent {
  const [method = 'GET', path = '/'] = routeKey.split(' ');
  return {
    version: '2.0',
    routeKey,
    rawPath: path,
    rawQueryString: '',
    headers: options.headers ?? {},
    body: options.body,
    isBase64Encoded: false,
    requestContext: {
      accountId: '000000000000',
      apiId: 'test',
      domainName: 'test',
      domainPrefix: 'test',
      http: { method, path, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'vitest' },
      requestId: 'req-1',
      routeKey,
      stage: '$default',
      time: new Date().toISOString(),
      timeEpoch: Date.now(),
      authorizer: options.authorizer ? { lambda: options.authorizer } : undefined,
    },
  } as ApiEvent;
}

export const lambdaContext = {
  functionName: 'test',
  awsRequestId: 'test',
  getRemainingTimeInMillis: () => 10_000,
} as unknown as Context;
