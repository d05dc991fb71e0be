/**
 * One edge: every route's handler validates against the very contract object the OpenAPI
 * document is generated from (`shared/openapi/contracts.ts`), so what the document promises and
 * what the edge enforces cannot drift apart.
 */
import { describe, expect, it } from 'vitest';
import { type RouteDef, routeKey, routes } from '../../../shared/catalog/routes';
import { contracts } from '../../../shared/openapi/contracts';

const root = new URL('../../../', import.meta.url);

describe('route contracts', () => {
  for (const route of routes as readonly RouteDef[]) {
    const key = routeKey(route);
    it(`${key} validates against its cataloged contract`, async () => {
      const module = (await import(new URL(route.handler, root).href)) as { handler: { contract?: unknown } };
      expect(module.handler.contract).toBeDefined();
      expect(module.handler.contract).toBe(contracts[key]);
    });
  }
});
