import SwaggerParser from '@apidevtools/swagger-parser';
import { describe, expect, it } from 'vitest';
import { type RouteDef, routeKey, routes } from '../../../shared/catalog/routes';
import { adminKey, call, createKey, revokeKeys } from '../../support/api';

const all = routes as readonly RouteDef[];
const concrete = (route: RouteDef) => route.path.replace(/\{[^}]+\}/g, '1');
const errorShape = (status: number) => ({
  statusCode: status,
  error: expect.any(String),
  message: expect.any(String),
});

describe('local gateway: platform routes', () => {
  it('serves /health without a key', async () => {
    const res = await call('GET', '/health', { key: null });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'ok', service: 'causeway' });
  });

  it('serves a valid OpenAPI 3.1 document covering every route', async () => {
    const res = await call('GET', '/openapi.json', { key: null });
    expect(res.status).toBe(200);
    const doc = res.body as { openapi: string; paths: Record<string, Record<string, unknown>> };
    expect(doc.openapi).toBe('3.1.0');
    await SwaggerParser.validate(structuredClone(doc) as never);
    for (const route of all)
      expect(doc.paths[route.path]?.[route.method.toLowerCase()], routeKey(route)).toBeDefined();
  });

  it('ignores X-Forwarded-Proto from a peer that is not the stage’s proxy (issue 24, finding 9)', async () => {
    for (const forwarded of ['https', 'javascript', 'https://attacker.example/x?']) {
      const res = await call('GET', '/openapi.json', {
        key: null,
        headers: { 'x-forwarded-proto': forwarded },
      });
      expect(res.status).toBe(200);
      const [first] = (res.body as { servers: { url: string }[] }).servers;
      expect(first?.url, forwarded).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    }
  });

  it('accepts the bare key and the Bearer scheme', async () => {
    expect((await call('GET', '/me', { key: adminKey() })).body).toMatchObject({
      permissions: ['APPLICATION_ADMIN'],
    });
    expect((await call('GET', '/me', { key: `Bearer ${adminKey()}` })).status).toBe(200);
  });
});

describe('local gateway: authentication and authorization on every route', () => {
  const guarded = all.filter((r) => r.auth !== 'public');

  it('answers 401 with the error shape when there is no key', async () => {
    for (const route of guarded) {
      const res = await call(route.method, concrete(route), { key: null });
      expect(res.status, routeKey(route)).toBe(401);
      expect(res.body).toEqual(errorShape(401));
    }
  });

  it('answers 401 for an unknown key', async () => {
    for (const route of guarded) {
      const res = await call(route.method, concrete(route), { key: 'cw_not-a-real-key' });
      expect(res.status, routeKey(route)).toBe(401);
      expect(res.body).toEqual(errorShape(401));
    }
  });

  it('answers 401 once a key is revoked', async () => {
    const { userId, apiKey } = await createKey('soon-revoked');
    expect((await call('GET', '/me', { key: apiKey })).status).toBe(200);
    await revokeKeys(userId);
    const res = await call('GET', '/me', { key: apiKey });
    expect(res.status).toBe(401);
    expect(res.body.message).toMatch(/revoked/);
  });

  it('answers 403 for a non-admin on every admin route', async () => {
    const { apiKey } = await createKey('plain-user');
    const adminRoutes = guarded.filter((r) => r.auth === 'admin');
    for (const route of adminRoutes) {
      const res = await call(route.method, concrete(route), {
        key: apiKey,
        body: route.method === 'GET' ? undefined : {},
      });
      expect(res.status, routeKey(route)).toBe(403);
      expect(res.body).toEqual(errorShape(403));
    }
  });
});

describe('local gateway: errors in the service shape', () => {
  it('404 for an unknown path, 405 for a known path with another method', async () => {
    const missing = await call('GET', '/definitely/not/here');
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual(errorShape(404));
    const wrongMethod = await call('DELETE', '/health');
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('GET');
    expect(wrongMethod.body).toEqual(errorShape(405));
  });

  it('413 for a body over the payload limit', async () => {
    const response = await call('POST', '/me', { body: { blob: 'x'.repeat(7 * 1024 * 1024) } });
    expect(response.status).toBe(413);
    expect(response.body).toEqual(errorShape(413));
  });

  it('400 for a malformed JSON body on a route that takes one', async () => {
    const route = all.find((r) => r.method !== 'GET' && r.auth !== 'public' && !r.path.includes('{'));
    if (!route) throw new Error('no body-taking route in the route table');
    const res = await call(route.method, route.path, { raw: '{"broken": ', contentType: 'application/json' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(errorShape(400));
  });
});
