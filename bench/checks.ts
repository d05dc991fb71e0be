/**
 * Figure 10, periodic integration checks (issue 21): checks per second through the real check
 * function (`checkIntegration`, what the `integrationChecks` consumer runs per message) against
 * the sandbox, and the DynamoDB read and write units one check costs. Baseline, side by side on
 * the same integrations: the connection and validation tests alone (what a periodic
 * re-validation without assurance would run). Both run 5 at a time, as one consumer batch does.
 *
 * The integrations are copies of one automatic ClusterWarehouse integration created through the
 * gateway, each on a sandbox host of its own holding that setup (test/support/integration-fleet).
 */
import type { PlatformPayload } from '../shared/platforms/port';
import { dynamodb } from '../shared/store/clients';
import { seedIntegrationFleet } from '../test/support/integration-fleet';
import { payloads, uid } from '../test/unit/integrations/fixtures';
import { CapacityMeter } from './lib/capacity';
import { round, runPool, sleep } from './lib/stats';

export interface ChecksResult {
  integrations: number;
  concurrency: number;
  checksPerSecond: number;
  validationPerSecond: number;
  /** Check time over validation time: the cost of looking at every object and grant. */
  ratio: number;
  rcuPerCheck: number;
  wcuPerCheck: number;
  readsPerCheck: number;
  writesPerCheck: number;
  notEnabled: number;
}

async function createEnabled(gateway: string, adminKey: string): Promise<number> {
  const body = payloads(uid()).ClusterWarehouse;
  const headers = { authorization: adminKey, 'content-type': 'application/json' };
  const created = await fetch(`${gateway}/integrations`, {
    method: 'POST',
    headers,
    body: JSON.stringify(body),
  });
  if (created.status !== 202)
    throw new Error(`POST /integrations answered ${created.status}: ${await created.text()}`);
  const id = Number(((await created.json()) as { id: string }).id);
  for (;;) {
    const shown = (await (await fetch(`${gateway}/integrations/${id}`, { headers })).json()) as {
      status: string;
    };
    if (shown.status === 'enabled') return id;
    if (shown.status !== 'creating') throw new Error(`integration ${id} ended ${shown.status}`);
    await sleep(200);
  }
}

export async function integrationChecks(options: {
  gateway: string;
  adminKey: string;
  integrations: number;
}): Promise<ChecksResult> {
  const concurrency = 5;
  const first = await createEnabled(options.gateway, options.adminKey);
  const ids = await seedIntegrationFleet(first, options.integrations);
  const [
    { checkIntegration },
    { getIntegration },
    { payloadOf },
    { decryptedPayload, integrationOwner },
    { connectorFor },
  ] = await Promise.all([
    import('../shared/integrations/assurance/check'),
    import('../shared/integrations/store/integrations'),
    import('../shared/integrations/model'),
    import('../shared/integrations/secrets'),
    import('../shared/platforms/connectors'),
  ]);
  const connector = await connectorFor('ClusterWarehouse');

  const validationStarted = performance.now();
  await runPool(ids.length, concurrency, async (i) => {
    const record = await getIntegration(ids[i] as number);
    if (!record) throw new Error(`integration ${ids[i]} is gone`);
    const payload = (await decryptedPayload(
      payloadOf(record),
      integrationOwner(record.id),
    )) as PlatformPayload;
    await connector.validate({
      operation: 'edit',
      payload,
      previous: payload,
      integrationId: record.id,
    });
  });
  const validationSeconds = (performance.now() - validationStarted) / 1000;

  const meter = new CapacityMeter();
  meter.install(dynamodb);
  const checkRound = new Date().toISOString();
  let notEnabled = 0;
  const checksStarted = performance.now();
  const { capacity } = await meter.measure(() =>
    runPool(ids.length, concurrency, async (i) => {
      const outcome = await checkIntegration(ids[i] as number, checkRound);
      if (!outcome.checked || outcome.status !== 'enabled') notEnabled++;
    }),
  );
  const checkSeconds = (performance.now() - checksStarted) / 1000;
  const per = (n: number) => round(n / ids.length, 2);
  return {
    integrations: ids.length,
    concurrency,
    checksPerSecond: round(ids.length / checkSeconds, 1),
    validationPerSecond: round(ids.length / validationSeconds, 1),
    ratio: round(checkSeconds / validationSeconds, 2),
    rcuPerCheck: per(capacity.rcu),
    wcuPerCheck: per(capacity.wcu),
    readsPerCheck: per(capacity.reads),
    writesPerCheck: per(capacity.writes),
    notEnabled,
  };
}
