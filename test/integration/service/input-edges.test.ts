/**
 * Edge cases of path ids and query strings on every route that takes them: each must be
 * answered with a 4xx and the error shape, never a 5xx. Ids past Number.MAX_SAFE_INTEGER used
 * to reach DynamoDB's marshaller (which refuses unsafe numbers) and answer 500.
 */
import { describe, expect, it } from 'vitest';
import { type RouteDef, routeKey, routes } from '../../../shared/catalog/routes';
import { call } from '../../support/api';

const errorShape = (status: number) => ({
  statusCode: status,
  error: expect.any(String),
  message: expect.any(String),
});

const withId = (routes as readonly RouteDef[]).filter((r) => r.path.includes('{id}'));

const BAD_IDS = [
  'abc',
  '-1',
  '0',
  '1.5',
  '1e3',
  '9007199254740993',
  '9999999999999999',
  '99999999999999999999',
  '%20',
  '0x10',
];

describe('path ids', () => {
  it('answers every malformed or out-of-range id with a 4xx and the error shape', async () => {
    expect(withId.length).toBeGreaterThan(5);
    for (const route of withId) {
      for (const id of BAD_IDS) {
        const res = await call(route.method, route.path.replace('{id}', id), {
          body: route.method === 'GET' ? undefined : {},
        });
        expect(res.status, `${routeKey(route)} id=${id}`).toBeGreaterThanOrEqual(400);
        expect(res.status, `${routeKey(route)} id=${id}: ${res.text}`).toBeLessThan(500);
        expect(res.body, `${routeKey(route)} id=${id}`).toEqual(errorShape(res.status));
      }
    }
  });

  it('refuses ids that do not fit a safe integer with a 400 naming the id as invalid', async () => {
    for (const route of withId) {
      const res = await call(route.method, route.path.replace('{id}', '9999999999999999'), {
        body: route.method === 'GET' ? undefined : {},
      });
      expect(res.status, `${routeKey(route)}: ${res.text}`).toBe(400);
    }
  });
});

describe('query strings', () => {
  it('refuses flags that are not exactly true or false, and repeated flags', async () => {
    for (const query of ['dryRun=TRUE', 'dryRun=1', 'dryRun=true&dryRun=false', 'dryRun=']) {
      const res = await call('POST', `/integrations?${query}`, { body: { type: 'FederatedSql' } });
      expect(res.status, query).toBe(400);
      expect(res.body).toEqual(errorShape(400));
    }
    const del = await call('DELETE', '/integrations/987654321?forceDisable=yes');
    expect(del.status).toBe(400);
  });

  it('answers history queries out of bounds with a 400 and the error shape', async () => {
    for (const query of [
      'pageSize=0',
      'pageSize=101',
      'pageSize=-1',
      'pageSize=1&pageSize=2',
      'offset=-5',
      'offset=99999999999999999999',
      'offset=1e3',
      'sortField=secret',
      'sortOrder=sideways',
      'includeGlobal=TRUE',
      'includeUser=yes',
      'notificationType=notAThing',
      'successOrFailure=maybe',
      'unknown=1',
    ]) {
      const res = await call('GET', `/webhooks/history?${query}`);
      expect(res.status, `${query}: ${res.text}`).toBe(400);
      expect(res.body).toEqual(errorShape(400));
    }
    const ok = await call('GET', '/webhooks/history?sortOrder=ASC&pageSize=100&offset=0');
    expect(ok.status).toBe(200);
  });
});

describe('methods and bodies the routes do not expect', () => {
  it('answers HEAD and OPTIONS with a 4xx and no 5xx', async () => {
    for (const path of ['/webhooks', '/integrations', '/webhooks/1', '/nope']) {
      for (const method of ['HEAD', 'OPTIONS']) {
        const res = await call(method, path);
        expect(res.status, `${method} ${path}`).toBeGreaterThanOrEqual(400);
        expect(res.status, `${method} ${path}`).toBeLessThan(500);
        if (method === 'HEAD') expect(res.text).toBe('');
        else expect(res.body).toEqual(errorShape(res.status));
      }
    }
  });

  it('answers a body that is not UTF-8 with a 400 and the error shape', async () => {
    const bytes = new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]);
    for (const [method, path] of [
      ['POST', '/webhooks'],
      ['POST', '/integrations'],
      ['POST', '/integrations/scripts/create'],
    ] as const) {
      const res = await call(method, path, { raw: bytes, contentType: 'application/json' });
      expect(res.status, path).toBe(400);
      expect(res.body).toEqual(errorShape(400));
    }
  });
});
