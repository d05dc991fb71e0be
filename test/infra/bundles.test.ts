/**
 * Every catalogued handler, bundled exactly as it is deployed, loads in a fresh Node process
 * and exports `handler` (a bundle that leaves out a module or crashes at module scope fails
 * here instead of in Lambda), and API bundles stay small.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import {
  API_BUNDLE_LIMIT_BYTES,
  type ColdStartResult,
  coldStart,
  coldStartEnv,
} from '../../bench/cold-start';

let result: ColdStartResult;

beforeAll(async () => {
  result = await coldStart({ runs: 1, env: coldStartEnv() });
});

describe('Lambda bundles', () => {
  it('exist for every catalogued handler', () => {
    expect(result.missing).toEqual([]);
    expect(result.rows.length).toBeGreaterThan(30);
  });

  it('all import in a fresh process and export a handler', () => {
    const broken = result.rows.filter((r) => r.importError).map((r) => `${r.handler}: ${r.importError}`);
    expect(broken).toEqual([]);
  });

  it('keep API handlers lean (no database drivers in API bundles)', () => {
    for (const row of result.rows.filter((r) => r.kind === 'api' || r.kind === 'authorizer')) {
      expect(row.bundleBytes, row.handler).toBeLessThanOrEqual(API_BUNDLE_LIMIT_BYTES);
    }
  });
});
