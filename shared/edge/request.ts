/** Facts about the request as the caller made it. */
import { optionalEnv } from '../config/env';
import type { ApiRequest } from './handler';

/**
 * Peers whose `X-Forwarded-Proto` is believed: the stage's own TLS-terminating proxy, by
 * address (stage setting `trustedProxyAddresses`, none by default). From anyone else the
 * header is whatever the caller wrote.
 */
function trustedProxyAddresses(): string[] {
  return (optionalEnv('TRUSTED_PROXY_ADDRESSES') ?? '')
    .split(',')
    .map((a) => a.trim())
    .filter((a) => a.length > 0);
}

/**
 * The base URL callers reached the service on (written into the FederatedSql snippet and the
 * OpenAPI document's first server). The scheme is `http` for a loopback host (the local
 * gateway) and `https` otherwise (API Gateway answers HTTPS only), unless the stage's own
 * proxy says otherwise in `X-Forwarded-Proto` (`http` or `https`, nothing else).
 */
export function serviceUrl(req: Pick<ApiRequest, 'event' | 'headers'>): string {
  const host = req.event.requestContext.domainName || req.headers.host || 'localhost';
  const local = /^(127\.0\.0\.1|localhost|\[::1\])(:\d+)?$/.test(host);
  const forwarded = req.headers['x-forwarded-proto']?.trim().toLowerCase();
  const fromProxy = trustedProxyAddresses().includes(req.event.requestContext.http?.sourceIp ?? '');
  const proto =
    fromProxy && (forwarded === 'http' || forwarded === 'https') ? forwarded : local ? 'http' : 'https';
  return `${proto}://${host}`;
}
