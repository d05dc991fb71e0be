/**
 * Continuous connection assurance on its schedule (issue 21), each part on a local cloud of its
 * own (the shared suite's cloud runs no periodic round):
 * - with rounds every 2 s, a sandbox outage switched on with the operator CLI makes the first
 *   check that starts after it move each integration to `recurringValidationError`, and a global
 *   webhook receives exactly one `healthCheckFailed` per integration (its metadata naming the
 *   integration, type, host and the failed connection test) however many failing checks follow;
 *   the outage switched off brings `enabled` back and exactly one `healthCheckResolved`;
 * - with 1,001 integrations on as many sandbox hosts, one round checks every one of them, and no
 *   invocation of the checks' consumer handles more than its batch of 5 messages or runs longer
 *   than a single check may (the check's own time bound): the work is fanned out, never looped.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { clientEnvironment } from '../../infra/local/env';
import { type Receiver, startReceiver } from '../integration/webhooks/receiver';
import { untilDone } from '../support/api';
import { runCli } from '../support/cli';
import { type RunningCloud, startCloudProcess } from '../support/local-cloud-process';
import { payloads, uid } from '../unit/integrations/fixtures';
import { request } from './support';

const clouds: RunningCloud[] = [];
let receiver: Receiver | undefined;

afterAll(async () => {
  for (const c of clouds) await c.stop();
  await receiver?.close();
});

/** The operator CLI on a cloud's state directory. */
const cli = (cloud: RunningCloud, args: string[]) => runCli(cloud.stateDir, args);

/** The cloud's JSON log lines with the given message. */
// biome-ignore lint/suspicious/noExplicitAny: log lines are asserted field by field
function logLines(cloud: RunningCloud, message: string): any[] {
  const text = readFileSync(cloud.logFile, 'utf8');
  // Whole lines only: the cloud may be half-way through writing the last one.
  return text
    .slice(0, text.lastIndexOf('\n') + 1)
    .split('\n')
    .filter((line) => line.startsWith('{') && line.includes(message))
    .map((line) => JSON.parse(line))
    .filter((line) => line.message === message);
}

/** Points this worker's shared modules at `cloud` (for seeding through the service's own code). */
function useCloud(cloud: RunningCloud): void {
  Object.assign(process.env, clientEnvironment(cloud.endpoints), {
    LOCAL_MASTER_KEY_FILE: join(cloud.stateDir, 'master.key'),
    SANDBOX_DIR: join(cloud.stateDir, 'sandbox'),
  });
}

interface Shown {
  status: string;
  lastCheckedAt?: string;
}

async function createEnabled(cloud: RunningCloud, type: 'CloudWarehouse' | 'ClusterWarehouse') {
  const body = payloads(uid())[type] as { config: Record<string, unknown> };
  const created = await request(cloud.endpoints.gateway, 'POST', '/integrations', {
    key: cloud.adminApiKey,
    body,
  });
  expect(created.status, created.text).toBe(202);
  const id = Number(created.body.id);
  const shown = () =>
    request(cloud.endpoints.gateway, 'GET', `/integrations/${id}`, { key: cloud.adminApiKey }).then(
      (r) => r.body as Shown,
    );
  await untilDone(
    () => shown(),
    (s) => s.status === 'enabled' || s.status === 'createError',
    { progress: (s) => s.status, what: `integration ${id} set up` },
  ).then((s) => expect(s.status).toBe('enabled'));
  return { id, type, host: String(body.config.host), shown };
}

describe('periodic checks on their schedule', () => {
  it('an outage: one healthCheckFailed at the first check after it, one healthCheckResolved after it ends', async () => {
    receiver = await startReceiver();
    const cloud = await startCloudProcess({ env: { INTEGRATION_CHECK_INTERVAL_SECONDS: '2' } });
    clouds.push(cloud);
    const hook = await request(cloud.endpoints.gateway, 'POST', '/webhooks', {
      key: cloud.adminApiKey,
      body: {
        webhooks: [
          {
            name: 'health',
            url: receiver.url('/health'),
            global: true,
            notificationType: ['healthCheckFailed', 'healthCheckResolved'],
            actionType: 'triggered',
          },
        ],
      },
    });
    expect(hook.status, hook.text).toBe(201);
    const integrations = await Promise.all([
      createEnabled(cloud, 'CloudWarehouse'),
      createEnabled(cloud, 'ClusterWarehouse'),
    ]);
    /**
     * The notifications of one kind about one integration the receiver got, each once: delivery
     * is at least once, and a POST answered after the cloud's timeout on a loaded machine comes
     * again under the same `webhook-id` (one notification, two POSTs; Standard Webhooks receivers
     * drop the second). A second notification has an id of its own and is counted.
     */
    const noticesOf = (id: number, type: string) => [
      ...new Map(
        (receiver?.byPath('/health') ?? [])
          .map((r) => ({
            id: r.headers['webhook-id'],
            n: JSON.parse(r.body) as { metadata: Record<string, unknown> },
          }))
          .filter(({ n }) => n.metadata.integrationId === id && n.metadata.notificationType === type)
          .map(({ id: webhookId, n }) => [webhookId, n] as const),
      ).values(),
    ];
    /** Waits until `count` more checks of the integration were recorded (rounds keep coming). */
    const afterChecks = async (i: (typeof integrations)[number], count: number) => {
      let seen = (await i.shown()).lastCheckedAt;
      for (let n = 0; n < count; n++) {
        const before = seen;
        seen = (
          await untilDone(
            () => i.shown(),
            (s) => s.lastCheckedAt !== before,
            { what: `a check of integration ${i.id}` },
          )
        ).lastCheckedAt;
      }
      return i.shown();
    };

    await Promise.all(
      integrations.map(async (i) => {
        // A check passed before the outage.
        expect((await afterChecks(i, 1)).status).toBe('enabled');
        const on = await cli(cloud, ['sandbox', 'outage', '--type', i.type, '--host', i.host, 'on']);
        expect(on.code, on.stderr).toBe(0);
        const outageAt = Date.now();
        const failing = await untilDone(
          () => i.shown(),
          (s) => s.status === 'recurringValidationError',
          { progress: (s) => s.status, what: `integration ${i.id} failing` },
        );
        expect(failing.status).toBe('recurringValidationError');
        // Every check that started once the outage was on failed (one may have seen it even
        // while the CLI was still exiting); wait for such a check to be logged.
        await afterChecks(i, 1);
        const checksAfter = logLines(cloud, 'integration checked').filter(
          (l) => l.integrationId === i.id && Date.parse(l.timestamp) - l.durationMs > outageAt,
        );
        expect(checksAfter.length).toBeGreaterThan(0);
        expect(checksAfter.map((l) => l.status)).toEqual(checksAfter.map(() => 'recurringValidationError'));

        // More failing checks, still one notification.
        expect((await afterChecks(i, 1)).status).toBe('recurringValidationError');
        await untilDone(
          async () => noticesOf(i.id, 'healthCheckFailed'),
          (n) => n.length > 0,
          { what: 'the health notification delivered' },
        );
        const failed = noticesOf(i.id, 'healthCheckFailed');
        expect(failed).toHaveLength(1);
        expect(failed[0]?.metadata).toMatchObject({
          integrationId: i.id,
          integrationType: i.type,
          host: i.host,
          status: 'recurringValidationError',
        });
        const failedChecks = failed[0]?.metadata.failedChecks as { name: string; message: string }[];
        expect(failedChecks.length).toBeGreaterThan(0);
        expect(failedChecks.map((c) => c.message).join(' ')).toMatch(/unreachable/i);

        const off = await cli(cloud, ['sandbox', 'outage', '--type', i.type, '--host', i.host, 'off']);
        expect(off.code, off.stderr).toBe(0);
        await untilDone(
          () => i.shown(),
          (s) => s.status === 'enabled',
          { progress: (s) => s.status, what: `integration ${i.id} healthy again` },
        ).then((s) => expect(s.status).toBe('enabled'));
        expect((await afterChecks(i, 2)).status).toBe('enabled');
        await untilDone(
          async () => noticesOf(i.id, 'healthCheckResolved'),
          (n) => n.length > 0,
          { what: 'the health notification delivered' },
        );
        expect(noticesOf(i.id, 'healthCheckResolved')).toHaveLength(1);
        expect(noticesOf(i.id, 'healthCheckFailed')).toHaveLength(1);
      }),
    );
    await cloud.stop();
  }, 600_000);

  it('1,001 integrations in one round: every one checked, no invocation longer than one check', async () => {
    const cloud = await startCloudProcess({ env: { LOG_LEVEL: 'INFO' } });
    clouds.push(cloud);
    const first = await createEnabled(cloud, 'ClusterWarehouse');
    useCloud(cloud);
    const { seedIntegrationFleet } = await import('../support/integration-fleet');
    const { getIntegration } = await import('../../shared/integrations/store/integrations');
    const { checkTimeoutSeconds } = await import('../../shared/integrations/assurance/check');
    const { startRound } = await import('../../shared/integrations/assurance/rounds');
    const seeded = await seedIntegrationFleet(first.id, 1000);
    const round = await startRound();
    const all = [first.id, ...seeded];
    // Progress from the cloud's log (none of them was checked before this round).
    const checkedIds = () => new Set(logLines(cloud, 'integration checked').map((l) => l.integrationId));
    await untilDone(
      async () => {
        const checked = checkedIds();
        return all.filter((id) => !checked.has(id)).length;
      },
      (unchecked) => unchecked === 0,
      { intervalMs: 1_000, what: 'the round over 1,001 integrations' },
    );
    for (const id of [first.id, seeded[0], seeded[999]]) {
      const record = await getIntegration(id as number);
      expect(record).toMatchObject({ status: 'enabled', lastCheckRound: round, findings: [] });
    }
    // Every check and page was handled by an invocation of at most 5 messages, none longer than
    // one check's own bound (the checks of a batch run concurrently).
    const batches = logLines(cloud, 'integrationChecks batch');
    const messages = batches.reduce((n, b) => n + b.messages, 0);
    // 1,001 checks and 11 pages of at most 100 (the last may be empty), plus any retried messages.
    expect(messages).toBeGreaterThanOrEqual(1001 + 11);
    expect(Math.max(...batches.map((b) => b.messages))).toBeLessThanOrEqual(5);
    expect(Math.max(...batches.map((b) => b.durationMs))).toBeLessThan(checkTimeoutSeconds() * 1000);
    await cloud.stop();
  }, 900_000);
});
