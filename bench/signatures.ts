/**
 * Figure 16, asymmetric signatures (issue 39, ADR 0018), each measured beside its baseline in one
 * run with the real code:
 * - delivery throughput of `v1a` webhooks against `v1` ones: the deliveries consumer imported
 *   into this process, rounds alternating between two sets of webhooks that differ only in their
 *   scheme (target ≥ 0.95);
 * - one signature: `webhookHeaders` with an Ed25519 key against an HMAC secret, p50 / p99;
 * - the published keys: `GET /webhook-keys/{keySetId}` requests/s through the local cloud's
 *   gateway against `GET /health`, rounds alternating.
 */
import { Agent, request } from 'undici';
import { queueDef } from '../shared/catalog/queues';
import { type BenchWebhook, consumerRunner, deliverHandler, makeOwners, makeWebhooks } from './delivery';
import type { BenchCloud } from './lib/cloud';
import { startReceiver } from './lib/receiver';
import { percentile, round } from './lib/stats';

export interface SignatureResult {
  throughput: {
    v1PerSecond: number;
    v1aPerSecond: number;
    ratio: number;
    deliveries: number;
    failedItems: number;
  };
  signature: { v1: { p50Us: number; p99Us: number }; v1a: { p50Us: number; p99Us: number }; samples: number };
  jwks: {
    jwksPerSecond: number;
    healthPerSecond: number;
    ratio: number;
    seconds: number;
    concurrency: number;
  };
  target: { ratioAtLeast: number; met: boolean };
}

const THROUGHPUT_TARGET = 0.95;

async function signatureCost(samples: number): Promise<SignatureResult['signature']> {
  const { generateSigningKey, webhookHeaders } = await import('../shared/webhooks/pipeline/signing');
  const { secretKey } = generateSigningKey();
  const body = JSON.stringify({
    text: 'x'.repeat(400),
    metadata: { notificationType: 'modelAccessRequested' },
  });
  const credentials = {
    v1: 'whsec_MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=',
    v1a: { scheme: 'v1a' as const, secretKey },
  };
  const times: Record<'v1' | 'v1a', number[]> = { v1: [], v1a: [] };
  for (let i = 0; i < samples; i++) {
    for (const scheme of ['v1', 'v1a'] as const) {
      const started = performance.now();
      webhookHeaders(`msg_${i}`, body, credentials[scheme]);
      times[scheme].push((performance.now() - started) * 1000);
    }
  }
  const summary = (t: number[]) => ({
    p50Us: round(percentile(t, 50), 1),
    p99Us: round(percentile(t, 99), 1),
  });
  return { v1: summary(times.v1), v1a: summary(times.v1a), samples };
}

async function schemeThroughput(deliveries: number): Promise<SignatureResult['throughput']> {
  const batchSize = queueDef('deliveries').consumer.batchSize;
  const invocations = 4;
  const receiver = await startReceiver();
  try {
    const handler = await deliverHandler();
    const owners = await makeOwners(10, 'bench-signatures');
    const sets: Record<'v1' | 'v1a', BenchWebhook[]> = { v1: [], v1a: [] };
    for (const [i, owner] of owners.entries()) {
      sets.v1.push(...(await makeWebhooks(owner, receiver.url, [`/s/${i}/v1`], 'v1')));
      sets.v1a.push(...(await makeWebhooks(owner, receiver.url, [`/s/${i}/v1a`], 'v1a')));
    }
    const consumer = consumerRunner(handler, invocations);
    const run = (webhooks: BenchWebhook[], count: number) => consumer.run(webhooks, count);
    // Warm-up (connections, JIT, data keys of both sets): not measured.
    await run(sets.v1, batchSize * invocations);
    await run(sets.v1a, batchSize * invocations);
    consumer.failedItems = 0;
    const totals = { v1: { count: 0, ms: 0 }, v1a: { count: 0, ms: 0 } };
    const quarter = Math.ceil(deliveries / 4);
    for (let round = 0; round < 2; round++) {
      for (const scheme of round === 0 ? (['v1', 'v1a'] as const) : (['v1a', 'v1'] as const)) {
        const r = await run(sets[scheme], quarter);
        totals[scheme].count += r.count;
        totals[scheme].ms += r.ms;
      }
    }
    const v1PerSecond = (totals.v1.count / totals.v1.ms) * 1000;
    const v1aPerSecond = (totals.v1a.count / totals.v1a.ms) * 1000;
    return {
      v1PerSecond: round(v1PerSecond, 1),
      v1aPerSecond: round(v1aPerSecond, 1),
      ratio: round(v1aPerSecond / v1PerSecond),
      deliveries: totals.v1.count + totals.v1a.count,
      failedItems: consumer.failedItems,
    };
  } finally {
    await receiver.close();
  }
}

async function jwksRate(bench: BenchCloud, seconds: number): Promise<SignatureResult['jwks']> {
  const { createWebhooks } = await import('../shared/webhooks/api/webhooks');
  const [owner] = await makeOwners(1, 'bench-jwks');
  const base = bench.cloud.endpoints.gateway;
  const created = await createWebhooks(
    owner as NonNullable<typeof owner>,
    [
      {
        url: 'http://127.0.0.1:9/jwks',
        name: 'bench jwks',
        global: false,
        notificationType: ['modelAccessRequested'],
        actionType: 'triggered',
        signatureScheme: 'v1a',
      },
    ],
    base,
  );
  const jwksPath = new URL(created.createdWebhooks[0]?.jwksUrl as string).pathname;
  const concurrency = 16;
  const agent = new Agent({ connections: concurrency });
  const rate = async (path: string, ms: number) => {
    const until = performance.now() + ms;
    let done = 0;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (performance.now() < until) {
          const answer = await request(`${base}${path}`, { dispatcher: agent });
          await answer.body.text();
          if (answer.statusCode !== 200) throw new Error(`${path} answered ${answer.statusCode}`);
          done++;
        }
      }),
    );
    return { done, ms };
  };
  try {
    await rate(jwksPath, 500);
    await rate('/health', 500);
    const totals = { jwks: { done: 0, ms: 0 }, health: { done: 0, ms: 0 } };
    const slice = (seconds * 1000) / 4;
    for (let round = 0; round < 2; round++) {
      for (const which of round === 0 ? (['jwks', 'health'] as const) : (['health', 'jwks'] as const)) {
        const r = await rate(which === 'jwks' ? jwksPath : '/health', slice);
        totals[which].done += r.done;
        totals[which].ms += r.ms;
      }
    }
    const jwksPerSecond = (totals.jwks.done / totals.jwks.ms) * 1000;
    const healthPerSecond = (totals.health.done / totals.health.ms) * 1000;
    return {
      jwksPerSecond: round(jwksPerSecond, 1),
      healthPerSecond: round(healthPerSecond, 1),
      ratio: round(jwksPerSecond / healthPerSecond),
      seconds,
      concurrency,
    };
  } finally {
    await agent.close();
  }
}

export async function signatureFigures(
  bench: BenchCloud,
  options: { deliveries: number; samples: number; seconds: number },
): Promise<SignatureResult> {
  const signature = await signatureCost(options.samples);
  const throughput = await schemeThroughput(options.deliveries);
  const jwks = await jwksRate(bench, options.seconds);
  return {
    throughput,
    signature,
    jwks,
    target: {
      ratioAtLeast: THROUGHPUT_TARGET,
      met: throughput.ratio >= THROUGHPUT_TARGET && throughput.failedItems === 0,
    },
  };
}
