/** Facts about the request as the caller made it. */
import type { ApiRequest } from './handler';

/** The base URL callers reached the service on (written into the FederatedSql snippet). */
export function serviceUrl(req: Pick<ApiRequest, 'event' | 'headers'>): string {
  const host = req.event.requestContext.domainName || req.headers.host || 'localhost';
  const local = /^(127\.0\.0\.1|localhost|\[::1\])(:\d+)?$/.test(host);
  const proto = req.headers['x-forwarded-proto'] ?? (local ? 'http' : 'https');
  return `${proto}://${host}`;
}
