import { describe, expect, it } from 'vitest';
import { canonicalUrl } from '../../../shared/webhooks/canonical-url';

describe('the canonical form of a webhook URL (what counts as one URL)', () => {
  const base = 'https://hooks.example.com/in/abc';
  it.each([
    ['a fragment', `${base}#section`],
    ['a trailing slash', `${base}/`],
    ['empty path segments', 'https://hooks.example.com//in///abc'],
    ['percent-encoded unreserved characters', 'https://hooks.example.com/%69n/ab%63'],
    ['a trailing-dot host', 'https://hooks.example.com./in/abc'],
    ['an upper-case host and scheme', 'HTTPS://Hooks.EXAMPLE.com/in/abc'],
    ['the default port', 'https://hooks.example.com:443/in/abc'],
    ['an empty query', `${base}?`],
    ['dot segments', 'https://hooks.example.com/in/x/../abc'],
  ])('%s is the same URL', (_why, variant) => {
    expect(canonicalUrl(variant)).toBe(base);
  });

  it('keeps what a receiver may route on: path case, the query, its order, reserved escapes', () => {
    expect(canonicalUrl(`${base}?b=1&a=2`)).toBe(`${base}?b=1&a=2`);
    expect(canonicalUrl(`${base}?a=2&b=1`)).not.toBe(canonicalUrl(`${base}?b=1&a=2`));
    expect(canonicalUrl('https://hooks.example.com/In/ABC')).toBe('https://hooks.example.com/In/ABC');
    expect(canonicalUrl('https://hooks.example.com/a%2fb?q=%7e%2f')).toBe(
      'https://hooks.example.com/a%2Fb?q=~%2F',
    );
    expect(canonicalUrl('http://hooks.example.com/in/abc')).not.toBe(base);
    expect(canonicalUrl('https://hooks.example.com:8443/in/abc')).not.toBe(base);
  });

  it('writes a host given as a number in dotted decimal, and the root path as /', () => {
    expect(canonicalUrl('http://2130706433/x')).toBe('http://127.0.0.1/x');
    expect(canonicalUrl('https://hooks.example.com')).toBe('https://hooks.example.com/');
  });
});
