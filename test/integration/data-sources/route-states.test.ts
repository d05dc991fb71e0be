/**
 * Every data-source route, and the integration DELETE that data sources change, against a data
 * source in every state it can be in: registered or removed, under an integration in each status
 * a data source can see (ADR 0016). The local cloud gives each function only what its catalogue
 * entry grants, so a missing grant answers 500 here as it would in AWS; `call` checks every answer
 * against the OpenAPI document. The routes come from the route table: a new data-source route fails
 * the inventory test until it has a case below.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { type RouteDef, routeKey, routes } from '../../../shared/catalog/routes';
import { call } from '../../support/api';
import { store as integrationStore } from '../integrations/helpers';
import { folder, objectStore, register, registered, type Store, uid } from './helpers';

/**
 * Statuses an integration with data sources can be in: `enabled`, a failed periodic check, a
 * failed edit, and `disabled` left by a force-disable that died before removing them.
 */
const INTEGRATION_STATES = ['enabled', 'recurringValidationError', 'editError', 'disabled'] as const;
const DATA_SOURCE_STATES = ['registered', 'removed'] as const;

interface Cell {
  store: Store;
  dataSourceId: number;
  integrationState: (typeof INTEGRATION_STATES)[number];
  dataSourceState: (typeof DATA_SOURCE_STATES)[number];
}

/** Each route's request on a cell and the status it must answer there. */
const CASES: Record<
  string,
  (cell: Cell) => Promise<{ method: string; path: string; body?: unknown; expected: number }>
> = {
  'GET /data-sources': async (cell) => ({
    method: 'GET',
    path: `/data-sources?integrationId=${cell.store.id}`,
    expected: 200,
  }),
  'GET /data-sources/{id}': async (cell) => ({
    method: 'GET',
    path: `/data-sources/${cell.dataSourceId}`,
    expected: cell.dataSourceState === 'registered' ? 200 : 404,
  }),
  'POST /data-sources': async (cell) => ({
    method: 'POST',
    path: '/data-sources',
    body: {
      type: 'ObjectStore',
      integrationId: cell.store.id,
      dataSources: [{ dataSourceName: `more-${uid()}`, prefix: await folder(cell.store) }],
    },
    expected: cell.integrationState === 'enabled' ? 201 : 409,
  }),
  'DELETE /data-sources/{id}': async (cell) => ({
    method: 'DELETE',
    path: `/data-sources/${cell.dataSourceId}`,
    expected: cell.dataSourceState === 'registered' ? 200 : 404,
  }),
};

const dataSourceRoutes = (routes as readonly RouteDef[]).filter((r) => r.path.startsWith('/data-sources'));

it('every data-source route has a case', () => {
  expect(dataSourceRoutes.map(routeKey).sort()).toEqual(Object.keys(CASES).sort());
});

async function cellFor(
  integrationState: Cell['integrationState'],
  dataSourceState: Cell['dataSourceState'],
): Promise<Cell> {
  const store = await objectStore();
  const dataSourceId = await registered(store, `cell-${uid()}`, await folder(store));
  if (dataSourceState === 'removed')
    expect((await call('DELETE', `/data-sources/${dataSourceId}`)).status).toBe(200);
  if (integrationState !== 'enabled') await (await integrationStore()).setStatus(store.id, integrationState);
  return { store, dataSourceId, integrationState, dataSourceState };
}

describe.each(INTEGRATION_STATES)('integration %s', (integrationState) => {
  describe.each(DATA_SOURCE_STATES)('data source %s', (dataSourceState) => {
    let cell: Cell;
    beforeAll(async () => {
      cell = await cellFor(integrationState, dataSourceState);
    });

    // In this order: the reads, then a registration, then the removal.
    it.each(Object.keys(CASES))('%s', async (route) => {
      const request = await (CASES[route] as (typeof CASES)[string])(cell);
      const answer = await call(request.method, request.path, { body: request.body });
      expect(answer.status, answer.text).toBe(request.expected);
    });

    it('DELETE /integrations/{id}: a 409 while data sources remain, forceDisable removes them', async () => {
      const left = (await call('GET', `/data-sources?integrationId=${cell.store.id}`)).body.dataSources
        .length;
      const plain = await call('DELETE', `/integrations/${cell.store.id}`);
      if (cell.integrationState === 'disabled') expect(plain.status).toBe(409);
      else if (left > 0) {
        expect(plain.status, plain.text).toBe(409);
        expect(plain.body.message).toMatch(new RegExp(`has ${left} data sources?;`));
      } else expect(plain.status, plain.text).toBe(202);
      if (left === 0) return;
      const forced = await call('DELETE', `/integrations/${cell.store.id}?forceDisable=true`);
      expect(forced.status, forced.text).toBe(200);
      expect((await call('GET', `/data-sources?integrationId=${cell.store.id}`)).body.dataSources).toEqual(
        [],
      );
      expect(
        (await register(cell.store, [{ dataSourceName: `late-${uid()}`, prefix: await folder(cell.store) }]))
          .status,
      ).toBe(409);
    });
  });
});
