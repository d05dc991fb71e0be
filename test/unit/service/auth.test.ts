import { describe, expect, it } from 'vitest';
import { extractApiKey, generateApiKey, hashApiKey } from '../../../shared/auth/keys';
import { contextFromPrincipal, isAdmin, principalFromContext } from '../../../shared/auth/permissions';

describe('API keys', () => {
  it('accepts the bare key and the Bearer scheme', () => {
    expect(extractApiKey('cw_abc')).toBe('cw_abc');
    expect(extractApiKey('Bearer cw_abc')).toBe('cw_abc');
    expect(extractApiKey('bearer   cw_abc  ')).toBe('cw_abc');
    expect(extractApiKey('BEARER cw_abc')).toBe('cw_abc');
  });

  it('finds no key in empty or scheme-only headers', () => {
    expect(extractApiKey(undefined)).toBeUndefined();
    expect(extractApiKey('')).toBeUndefined();
    expect(extractApiKey('   ')).toBeUndefined();
  });

  it('generates distinct high-entropy keys and stores only a hash', () => {
    const a = generateApiKey();
    const b = generateApiKey();
    expect(a).not.toBe(b);
    expect(a).toMatch(/^cw_[A-Za-z0-9_-]{43}$/);
    expect(hashApiKey(a)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashApiKey(a)).not.toContain(a.slice(3));
    expect(hashApiKey(a)).toBe(hashApiKey(a));
  });
});

describe('authorizer context', () => {
  const admin = { userId: 7, name: 'ada', permissions: ['APPLICATION_ADMIN' as const] };

  it('round-trips a principal, including the string form API Gateway delivers', () => {
    const ctx = contextFromPrincipal(admin);
    expect(principalFromContext(ctx)).toEqual(admin);
    const asStrings = Object.fromEntries(Object.entries(ctx).map(([k, v]) => [k, String(v)]));
    expect(principalFromContext(asStrings as never)).toEqual(admin);
  });

  it('yields no principal for unauthenticated or malformed contexts', () => {
    expect(principalFromContext(undefined)).toBeUndefined();
    expect(principalFromContext({ authenticated: false, reason: 'unknown key' })).toBeUndefined();
    expect(
      principalFromContext({ authenticated: true, userId: Number.NaN, name: 'x', permissions: '' }),
    ).toBeUndefined();
    expect(
      principalFromContext({ authenticated: true, userId: 1, name: 'x', permissions: 'ROOT' }),
    ).toBeUndefined();
  });

  it('knows admins', () => {
    expect(isAdmin(admin)).toBe(true);
    expect(isAdmin({ permissions: [] })).toBe(false);
  });
});
