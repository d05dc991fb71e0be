/**
 * The list of platform types, pinned: the one place a test names them all (issue 36 item 5).
 * Every other generic test iterates the registry (shared/platforms/index.ts) and each type's
 * examples, so a type added, removed or reordered by mistake fails here — the API's type enum,
 * its "must be one of" answer and the OpenAPI document follow this order. The other hand-written
 * pin is the connection identity of each type (./connection-identity.test.ts, a security review).
 */
import { describe, expect, it } from 'vitest';
import { INTEGRATION_TYPES, platforms } from '../../../shared/platforms';

const TYPES = [
  'ObjectStore',
  'AnalyticsWarehouse',
  'Lakehouse',
  'DatasetWarehouse',
  'ClusterWarehouse',
  'CloudWarehouse',
  'FederatedSql',
];

describe('the platform registry', () => {
  it('lists these types, in this order', () => {
    expect(INTEGRATION_TYPES).toEqual(TYPES);
    expect(platforms().map((m) => m.type)).toEqual(TYPES);
  });
});
