/**
 * A crash while a failed setup is being undone: a local cloud of this file's own (with a slow
 * sandbox, 1.5 s per statement) is SIGKILLed after the undo has removed one object and before it
 * removed the rest. Started again on the same state directory, the interrupted execution runs
 * again: its bootstrap task finds the recorded failure and goes straight back to the undo, which
 * resumes after the steps already undone. The integration ends `createError` and nothing the
 * service created is left on the sandbox — nothing half-undone without a record.
 */
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, describe, expect, it } from 'vitest';
import { readState } from '../../shared/platforms/sandbox/store';
import { untilDone } from '../support/api';
import { type RunningCloud, startCloudProcess } from '../support/local-cloud-process';
import { payloads, uid } from '../unit/integrations/fixtures';
import { request } from './support';

const ENV = { LOG_LEVEL: 'WARN', SANDBOX_STATEMENT_DELAY_MS: '1500' };
const clouds: RunningCloud[] = [];

afterAll(async () => {
  for (const c of clouds) await c.stop();
});

function recordReader(cloud: RunningCloud) {
  const client = DynamoDBDocumentClient.from(
    new DynamoDBClient({
      endpoint: cloud.endpoints.dynamodb,
      region: cloud.endpoints.region,
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    }),
  );
  return async (id: number) =>
    (
      await client.send(
        new GetCommand({ TableName: cloud.endpoints.tables.integrations, Key: { id }, ConsistentRead: true }),
      )
    ).Item as
      | { status: string; appliedSteps?: string[]; undoneSteps?: string[]; statusMessage?: string }
      | undefined;
}

/** What the service created on the sandbox host (the operator's pre-existing account aside). */
function created(stateDir: string, host: string): string[] {
  process.env.SANDBOX_DIR = join(stateDir, 'sandbox');
  return Object.values(readState('ClusterWarehouse', host).objects)
    .filter((o) => o.attrs.preexisting !== true)
    .map((o) => `${o.kind} ${o.name}`);
}

describe('crash during the undo of a failed setup', () => {
  it('resumes the undo after a restart and records the failure; nothing is left', async () => {
    const first = await startCloudProcess({ env: ENV, durable: true });
    clouds.push(first);
    const body = payloads(uid()).ClusterWarehouse as { config: Record<string, unknown> };
    body.config.password = 'fail-bootstrap';
    const host = String(body.config.host);
    const created202 = await request(first.endpoints.gateway, 'POST', '/integrations', {
      key: first.adminApiKey,
      body,
    });
    expect(created202.status, created202.text).toBe(202);
    const id = Number(created202.body.id);

    // Wait until the undo has removed something and not yet everything, then kill the process.
    const read = recordReader(first);
    const midway = await untilDone(
      () => read(id),
      (r) => (r?.undoneSteps?.length ?? 0) > 0 || r?.status !== 'creating',
      { progress: (r) => [r?.appliedSteps?.length, r?.undoneSteps?.length], what: 'the undo to start' },
    );
    process.kill(first.endpoints.pid, 'SIGKILL');
    await first.kill();
    expect(midway?.status).toBe('creating');
    const undone = new Set(midway?.undoneSteps ?? []);
    expect((midway?.appliedSteps ?? []).some((s) => !undone.has(s))).toBe(true);
    expect(created(first.stateDir, host).length).toBeGreaterThan(0);

    const second = await startCloudProcess({ stateDir: first.stateDir, env: ENV, durable: true });
    clouds.push(second);
    const readAgain = recordReader(second);
    const settled = await untilDone(
      () => readAgain(id),
      (r) => r?.status !== 'creating',
      { progress: (r) => r?.undoneSteps?.length, what: 'the resumed undo to finish' },
    );
    expect(settled?.status).toBe('createError');
    expect(settled?.statusMessage).toMatch(/step .* failed: .*; the \d+ step\(s\) that ran were undone$/);
    const finallyUndone = new Set(settled?.undoneSteps ?? []);
    expect((settled?.appliedSteps ?? []).filter((s) => !finallyUndone.has(s))).toEqual([]);
    expect(created(second.stateDir, host)).toEqual([]);
  });
});
