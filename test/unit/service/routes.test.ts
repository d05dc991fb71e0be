import { describe, expect, it } from 'vitest';
import { findRoute, type RouteDef, routeFunctionId, routeKey, routes } from '../../../shared/catalog/routes';
import { allowedMethods, matchRoute } from '../../../shared/edge/route-match';

const all = routes as readonly RouteDef[];

describe('route table', () => {
  it('has unique route keys and unique function ids', () => {
    const keys = all.map(routeKey);
    expect(new Set(keys).size).toBe(keys.length);
    const ids = all.map(routeFunctionId);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('every route can be found by its key and matched by a concrete path', () => {
    for (const route of all) {
      expect(findRoute(routeKey(route))).toBe(route);
      const concrete = route.path.replace(/\{[^}]+\}/g, '42');
      expect(matchRoute(route.method, concrete)?.route).toBe(route);
    }
  });

  it('makes CloudFormation-safe function ids', () => {
    expect(routeFunctionId({ method: 'GET', path: '/integrations/{id}/status' })).toBe(
      'GetIntegrationsIdStatus',
    );
    expect(routeFunctionId({ method: 'POST', path: '/webhooks/history/retry/{id}' })).toBe(
      'PostWebhooksHistoryRetryId',
    );
    expect(routeFunctionId({ method: 'GET', path: '/openapi.json' })).toBe('GetOpenapiJson');
  });
});

describe('route matching', () => {
  it('decodes path parameters and refuses malformed encodings', () => {
    const param = all.find((r) => r.path.includes('{'));
    if (!param) throw new Error('the route table has no route with a path parameter');
    const concrete = param.path.replace(/\{[^}]+\}/, 'a%20b');
    const match = matchRoute(param.method, concrete);
    expect(Object.values(match?.params ?? {})).toContain('a b');
    expect(matchRoute(param.method, param.path.replace(/\{[^}]+\}/, '%E0%A4%A'))).toBeUndefined();
  });

  it('prefers literal segments over parameters', () => {
    // e.g. POST /integrations/scripts/create must not be taken as /integrations/{id}/...
    for (const route of all) {
      if (route.path.includes('{')) continue;
      expect(matchRoute(route.method, route.path)?.route.path).toBe(route.path);
    }
  });

  it('lists the methods a path allows, for 405 answers', () => {
    expect(allowedMethods('/health')).toEqual(['GET']);
    expect(allowedMethods('/no/such/path')).toEqual([]);
  });
});
