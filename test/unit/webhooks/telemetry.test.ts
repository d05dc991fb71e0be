/**
 * Delivery telemetry against real loopback receivers: each attempt's result class becomes the
 * documented EMF metrics (captured from stdout, as CloudWatch Logs would read them), and every
 * delivered request carries a W3C traceparent in the notification's trace.
 */
import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Agent } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  AUTH_DENIAL_REASONS,
  DELIVERY_OUTCOMES,
  type DeliveryOutcome,
  LIFECYCLE_OUTCOMES,
  METRICS_NAMESPACE,
  metrics,
} from '../../../shared/catalog/metrics';
import { parseTraceparent } from '../../../shared/observability/trace';
import { webhookConnector } from '../../../shared/webhooks/pipeline/ssrf';
import {
  deliveryTraceparent,
  notificationOrigin,
  observeAttempt,
} from '../../../shared/webhooks/pipeline/telemetry';
import { type AttemptOutcome, postWebhook } from '../../../shared/webhooks/pipeline/transport';

interface Emf {
  _aws: {
    CloudWatchMetrics: {
      Namespace: string;
      Dimensions: string[][];
      Metrics: { Name: string; Unit: string }[];
    }[];
  };
  [key: string]: unknown;
}

const open = new Agent({ connect: webhookConnector({ allowPrivate: true, connectTimeoutMs: 1000 }) });
const guarded = new Agent({ connect: webhookConnector({ allowPrivate: false, connectTimeoutMs: 1000 }) });

let server: Server;
let base: string;
let refusedUrl: string;
const seen: IncomingHttpHeaders[] = [];

beforeAll(async () => {
  process.env.CAUSEWAY_STAGE = 'unit';
  server = createServer((req, res) => {
    seen.push(req.headers);
    req.resume();
    const status = Number(req.url?.slice(1));
    if (req.url === '/hang') return;
    res.writeHead(Number.isInteger(status) && status > 0 ? status : 200).end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // A port that was just free: nothing listens there.
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  refusedUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/`;
  await new Promise<void>((resolve) => closed.close(() => resolve()));
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await Promise.all([open.close(), guarded.close()]);
});

afterEach(() => {
  vi.restoreAllMocks();
});

/** The EMF lines `run` writes to stdout. */
async function emitted(run: () => Promise<void>): Promise<Emf[]> {
  const lines: string[] = [];
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    lines.push(String(chunk));
    return true;
  });
  try {
    await run();
  } finally {
    vi.restoreAllMocks();
  }
  return lines
    .flatMap((l) => l.split('\n'))
    .filter((l) => l.includes('"_aws"'))
    .map((l) => JSON.parse(l) as Emf);
}

/** An attempt the receiver answered with `statusCode` after `durationMs`. */
const answered = (statusCode: number, durationMs: number): AttemptOutcome => ({
  statusCode,
  response: { body: '{}' },
  outcomeClass: statusCode < 300 ? 'delivered' : 'failed',
  delivered: statusCode < 300,
  durationMs,
});

describe('delivery metrics', () => {
  const cases: [DeliveryOutcome, string, Agent, number?][] = [
    ['delivered', '/204', open],
    ['http4xx', '/404', open],
    ['http5xx', '/503', open],
    ['redirect', '/302', open],
    ['timeout', '/hang', open, 300],
    ['refused', 'REFUSED', open],
    ['ssrfBlocked', '/200', guarded],
  ];

  it.each(cases)(
    'an attempt that ends %s emits the documented metrics under its outcome',
    async (outcome, path, dispatcher, timeoutMs) => {
      const url = path === 'REFUSED' ? refusedUrl : `${base}${path}`;
      const notifiedAt = Date.now() - 1500;
      const [attemptLine, firstLine, ...rest] = await emitted(async () => {
        const result = await postWebhook(url, '{}', {}, { dispatcher, ...(timeoutMs ? { timeoutMs } : {}) });
        observeAttempt(result, 1, notifiedAt);
      });
      expect(rest).toEqual([]);
      const directive = attemptLine?._aws.CloudWatchMetrics[0];
      expect(directive?.Namespace).toBe(METRICS_NAMESPACE);
      expect(directive?.Dimensions).toEqual([
        ['service', 'stage'],
        ['service', 'stage', 'outcome'],
      ]);
      expect(directive?.Metrics).toEqual(
        (['DeliveryAttempts', 'DeliveryFailures', 'DeliveryLatency'] as const).map((name) => ({
          Name: name,
          Unit: metrics[name].unit,
        })),
      );
      expect(attemptLine).toMatchObject({
        service: 'causeway',
        stage: 'unit',
        outcome,
        DeliveryAttempts: 1,
        DeliveryFailures: outcome === 'delivered' ? 0 : 1,
      });
      expect(attemptLine?.DeliveryLatency).toBeGreaterThanOrEqual(timeoutMs ?? 0);
      expect(firstLine?._aws.CloudWatchMetrics[0]?.Metrics).toEqual([
        { Name: 'TimeToFirstAttempt', Unit: 'Milliseconds' },
      ]);
      expect(firstLine?._aws.CloudWatchMetrics[0]?.Dimensions).toEqual([['service', 'stage']]);
      expect(firstLine?.TimeToFirstAttempt).toBeGreaterThanOrEqual(1500);
    },
  );

  it('a retry emits no time to first attempt', async () => {
    const lines = await emitted(async () => {
      observeAttempt(
        await postWebhook(`${base}/500`, '{}', {}, { dispatcher: open }),
        2,
        Date.now() - 60_000,
      );
    });
    expect(lines.map((l) => Object.keys(l).filter((k) => k in metrics))).toEqual([
      ['DeliveryAttempts', 'DeliveryFailures', 'DeliveryLatency'],
    ]);
  });

  it('in one invocation, writes a document per outcome as it ends, a value per attempt, 99 values at most', async () => {
    const { metricsPerInvocation } = await import('../../../shared/observability/metrics');
    let writtenInside = -1;
    const lines = await emitted(async () => {
      await metricsPerInvocation(async () => {
        for (let i = 0; i < 100; i++) observeAttempt(answered(200, 7), 2);
        observeAttempt(answered(503, 7), 1, Date.now() - 1000);
        observeAttempt(answered(503, 7), 2);
        writtenInside = vi.mocked(process.stdout.write).mock.calls.length;
      });
    });
    // Nothing is written while the invocation runs.
    expect(writtenInside).toBe(0);
    const byOutcome = (outcome: string) => lines.filter((l) => l.outcome === outcome);
    // 100 delivered attempts: 99 in one document, the 100th in another, under the same dimensions.
    expect(byOutcome('delivered').map((l) => [l.DeliveryAttempts].flat().length)).toEqual([99, 1]);
    for (const l of byOutcome('delivered')) {
      expect(l._aws.CloudWatchMetrics[0]?.Dimensions).toEqual([
        ['service', 'stage'],
        ['service', 'stage', 'outcome'],
      ]);
      expect([l.DeliveryFailures].flat().every((v) => v === 0)).toBe(true);
    }
    expect(byOutcome('http5xx')).toMatchObject([
      { DeliveryAttempts: [1, 1], DeliveryFailures: [1, 1], DeliveryLatency: [7, 7] },
    ]);
    const first = lines.filter((l) => 'TimeToFirstAttempt' in l);
    expect(first).toHaveLength(1);
    expect(first[0]?.TimeToFirstAttempt).toBeGreaterThanOrEqual(1000);
    expect(lines).toHaveLength(4);
  });

  it('in an invocation that throws, still writes what was recorded', async () => {
    const { metricsPerInvocation } = await import('../../../shared/observability/metrics');
    const lines = await emitted(async () => {
      await metricsPerInvocation(async () => {
        observeAttempt(answered(200, 3), 2);
        throw new Error('boom');
      }).catch(() => undefined);
    });
    expect(lines).toMatchObject([{ outcome: 'delivered', DeliveryAttempts: 1, DeliveryLatency: 3 }]);
  });

  it('docs/operations.md documents every metric, dimension and dimension value', () => {
    const doc = readFileSync(join(import.meta.dirname, '../../../docs/operations.md'), 'utf8');
    const names = [
      METRICS_NAMESPACE,
      ...Object.keys(metrics),
      ...Object.values(metrics).flatMap((m) => m.dimensionSets.flat()),
      'service',
      'stage',
      ...DELIVERY_OUTCOMES,
      ...LIFECYCLE_OUTCOMES,
      ...AUTH_DENIAL_REASONS,
    ];
    for (const name of new Set(names)) expect(doc, name).toContain(`\`${name}\``);
  });
});

describe('traceparent on delivered requests', () => {
  // What the queue-consumer edge knows of a queued notification: when it was sent, its X-Ray header.
  const record = (attributes: { AWSTraceHeader: string }) => ({
    sentAt: 1700000000000,
    traceHeader: attributes.AWSTraceHeader,
  });

  it('joins the producer’s X-Ray trace: same trace id, a new span per attempt, the sampled flag kept', async () => {
    const origin = notificationOrigin(
      record({
        AWSTraceHeader: 'Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1',
      }),
    );
    expect(origin).toEqual({
      traceparent: '00-5759e988bd862e3fe1be46a994272793-53995c3f42cd8ad8-01',
      notifiedAt: 1700000000000,
    });
    seen.length = 0;
    for (let attempt = 0; attempt < 2; attempt++) {
      const outcome = await postWebhook(
        `${base}/200`,
        '{}',
        { traceparent: deliveryTraceparent(origin) },
        { dispatcher: open },
      );
      expect(outcome.delivered).toBe(true);
    }
    const received = seen.map((h) => parseTraceparent(h.traceparent as string));
    expect(received).toEqual([
      {
        traceId: '5759e988bd862e3fe1be46a994272793',
        parentId: expect.stringMatching(/^[0-9a-f]{16}$/),
        sampled: true,
      },
      {
        traceId: '5759e988bd862e3fe1be46a994272793',
        parentId: expect.stringMatching(/^[0-9a-f]{16}$/),
        sampled: true,
      },
    ]);
    expect(new Set(received.map((c) => c?.parentId)).size).toBe(2);
    expect(received[0]?.parentId).not.toBe('53995c3f42cd8ad8');
  });

  it('starts a new sampled trace when nothing upstream carries one, and ignores malformed headers', () => {
    const origin = notificationOrigin(record({ AWSTraceHeader: 'Root=1-00000000-000000000000000000000000' }));
    const context = parseTraceparent(origin.traceparent);
    expect(context).toMatchObject({ traceId: expect.stringMatching(/^[0-9a-f]{32}$/), sampled: true });
    expect(parseTraceparent(deliveryTraceparent({ traceparent: 'garbage' }))?.traceId).not.toBe(
      context?.traceId,
    );
    expect(parseTraceparent(deliveryTraceparent(origin))?.traceId).toBe(context?.traceId);
  });
});
