/**
 * The reconciler: an integration left in flight with no execution behind it (a crash between
 * the status write and StartExecution) moves to the operation's error status.
 */
import { describe, expect, it } from 'vitest';
import { api, settle, store } from './helpers';

describe('reconciler', () => {
  it.concurrent.each([
    ['creating', 'create', 'createError'],
    ['editing', 'edit', 'editError'],
    ['deleting', 'delete', 'deleteError'],
  ])('%s with no workflow → %s', async (status, operation, expected) => {
    const db = await store();
    const id = await db.nextId();
    const longAgo = new Date(Date.now() - 10 * 60_000).toISOString();
    await db.put({
      id,
      type: 'ClusterWarehouse',
      autoBootstrap: false,
      status,
      version: 1,
      config: {
        host: `stuck-${id}.example.com`,
        database: 'db',
        authenticationType: 'userPassword',
        port: 5439,
      },
      claims: [],
      operation,
      requestId: `lost-${id}`,
      inFlightStatus: status,
      operationStartedAt: longAgo,
      createdAt: longAgo,
      updatedAt: longAgo,
    });
    // The reconciler runs every 5 s over every integration: 50 s guards against a hang only.
    expect(await settle(id, 50_000)).toBe(expected);
    const r = await api('GET', `/integrations/${id}/status`);
    expect(r.body).toEqual({
      id,
      status: expected,
      statusMessage: 'the workflow for this operation never started',
    });
    expect((await db.get(id))?.inFlightStatus).toBeUndefined();
  });
});
