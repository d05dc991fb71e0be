import { afterEach, describe, expect, it } from 'vitest';
import type { ApiRequest } from '../../../shared/edge/handler';
import { serviceUrl } from '../../../shared/edge/request';

function request(host: string, sourceIp: string, forwarded?: string): Pick<ApiRequest, 'event' | 'headers'> {
  return {
    event: { requestContext: { domainName: host, http: { sourceIp } } } as ApiRequest['event'],
    headers: forwarded === undefined ? { host } : { host, 'x-forwarded-proto': forwarded },
  };
}

describe('the service URL written into snippets and the OpenAPI servers', () => {
  afterEach(() => {
    delete process.env.TRUSTED_PROXY_ADDRESSES;
  });

  it('is http for a loopback host and https otherwise when no proxy says more', () => {
    expect(serviceUrl(request('127.0.0.1:3000', '127.0.0.1'))).toBe('http://127.0.0.1:3000');
    expect(serviceUrl(request('api.example.com', '203.0.113.9'))).toBe('https://api.example.com');
  });

  it('ignores X-Forwarded-Proto from any peer that is not a trusted proxy', () => {
    expect(serviceUrl(request('127.0.0.1:3000', '127.0.0.1', 'https'))).toBe('http://127.0.0.1:3000');
    expect(serviceUrl(request('api.example.com', '203.0.113.9', 'http'))).toBe('https://api.example.com');
  });

  it('believes the stage’s own proxy, for http or https only', () => {
    process.env.TRUSTED_PROXY_ADDRESSES = '10.0.0.5, 10.0.0.6';
    expect(serviceUrl(request('127.0.0.1:3000', '10.0.0.6', 'HTTPS'))).toBe('https://127.0.0.1:3000');
    expect(serviceUrl(request('api.example.com', '10.0.0.5', 'http'))).toBe('http://api.example.com');
    expect(serviceUrl(request('api.example.com', '10.0.0.5', 'javascript'))).toBe('https://api.example.com');
    expect(serviceUrl(request('api.example.com', '10.0.0.5', 'https://x.example/'))).toBe(
      'https://api.example.com',
    );
    expect(serviceUrl(request('api.example.com', '10.0.0.7', 'http'))).toBe('https://api.example.com');
  });
});
