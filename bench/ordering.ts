/**
 * Figure 18, ordered delivery per key (issue 41, ADR 0020), end to end through the bench's local
 * cloud: keyed notifications over 100 keys, published through the real publisher (the FIFO
 * intake), fanned out and delivered by the cloud's consumers to a loopback receiver. Rounds
 * alternate between an ordered webhook (the ordered deliveries queue, a group per key) and an
 * unordered one (the deliveries queue) of another owner, the same notifications otherwise:
 * deliveries/s from the first publish to the last delivery, and order violations counted per key
 * over every ordered delivery (a delivery whose index is below one its key already delivered).
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import type { BenchCloud } from './lib/cloud';
import { round } from './lib/stats';

export interface OrderingResult {
  keys: number;
  orderedDeliveries: number;
  unorderedDeliveries: number;
  orderedPerSecond: number;
  unorderedPerSecond: number;
  ratio: number;
  violations: number;
  duplicates: number;
}

const NOTIFICATION = 'modelAccessRequested' as const;
const KEYS = 100;
const HANG_GUARD_MS = 15 * 60_000;

/** A receiver that keeps the `text` of every delivery per path, in arrival order. */
async function textReceiver() {
  const texts = new Map<string, string[]>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '/';
      const text = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { text: string }).text;
      texts.set(path, [...(texts.get(path) ?? []), text]);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
  });
  server.keepAliveTimeout = 10_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path: string) => `http://127.0.0.1:${port}${path}`,
    texts: (path: string) => texts.get(path) ?? [],
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Violations of per-key order in `texts` (`<round>:<key>:<index>`), and repeated deliveries. */
function orderViolations(texts: readonly string[]): { violations: number; duplicates: number } {
  const highest = new Map<string, number>();
  const seen = new Set<string>();
  let violations = 0;
  let duplicates = 0;
  for (const text of texts) {
    if (seen.has(text)) {
      duplicates += 1;
      continue;
    }
    seen.add(text);
    const [roundNo, key, index] = text.split(':');
    const group = `${roundNo}:${key}`;
    const i = Number(index);
    if (i < (highest.get(group) ?? -1)) violations += 1;
    else highest.set(group, i);
  }
  return { violations, duplicates };
}

export async function orderingFigure(
  bench: BenchCloud,
  options: { deliveries: number },
): Promise<OrderingResult> {
  const { createPrincipalWithKey } = await import('../shared/auth/keys');
  const { publishNotifications } = await import('../shared/notifications/publisher');
  const gateway = bench.cloud.endpoints.gateway;
  const receiver = await textReceiver();
  try {
    const tag = randomBytes(4).toString('hex');
    const owners: Record<'ordered' | 'unordered', number> = { ordered: 0, unordered: 0 };
    for (const kind of ['ordered', 'unordered'] as const) {
      const issued = await createPrincipalWithKey(`bench-ordering-${kind}-${tag}`, []);
      owners[kind] = issued.userId;
      const answer = await request(`${gateway}/webhooks`, {
        method: 'POST',
        headers: { authorization: issued.apiKey, 'content-type': 'application/json' },
        body: JSON.stringify({
          webhooks: [
            {
              name: `bench ordering ${kind}`,
              url: receiver.url(`/${kind}`),
              global: false,
              notificationType: [NOTIFICATION],
              actionType: 'receive',
              ordered: kind === 'ordered',
            },
          ],
        }),
      });
      const text = await answer.body.text();
      if (answer.statusCode !== 201) throw new Error(`webhook not created (${answer.statusCode}): ${text}`);
    }
    const perRound = Math.max(KEYS, Math.ceil(options.deliveries / 2 / KEYS) * KEYS);
    const totals = { ordered: { count: 0, ms: 0 }, unordered: { count: 0, ms: 0 } };
    let roundNo = 0;
    for (const order of [
      ['ordered', 'unordered'],
      ['unordered', 'ordered'],
    ] as const) {
      for (const kind of order) {
        roundNo += 1;
        const before = receiver.texts(`/${kind}`).length;
        // Interleaved keys, each key's indices in order: what the producer publishes.
        const inputs = Array.from({ length: perRound }, (_, n) => {
          const key = n % KEYS;
          const index = Math.floor(n / KEYS);
          return {
            notificationType: NOTIFICATION,
            text: `${roundNo}:${key}:${index}`,
            recipients: [owners[kind]],
            orderingKey: `bench:${tag}:${roundNo}:${key}`,
          };
        });
        const started = Date.now();
        for (let i = 0; i < inputs.length; i += 100) await publishNotifications(inputs.slice(i, i + 100));
        while (receiver.texts(`/${kind}`).length - before < perRound) {
          if (Date.now() - started > HANG_GUARD_MS)
            throw new Error(`figure 18: ${kind} round ${roundNo} hung`);
          await new Promise((r) => setTimeout(r, 50));
        }
        totals[kind].count += perRound;
        totals[kind].ms += Date.now() - started;
      }
    }
    const ordered = orderViolations(receiver.texts('/ordered'));
    const orderedPerSecond = (totals.ordered.count / totals.ordered.ms) * 1000;
    const unorderedPerSecond = (totals.unordered.count / totals.unordered.ms) * 1000;
    return {
      keys: KEYS,
      orderedDeliveries: totals.ordered.count,
      unorderedDeliveries: totals.unordered.count,
      orderedPerSecond: round(orderedPerSecond, 1),
      unorderedPerSecond: round(unorderedPerSecond, 1),
      ratio: round(orderedPerSecond / unorderedPerSecond),
      violations: ordered.violations,
      duplicates: ordered.duplicates,
    };
  } finally {
    await receiver.close();
  }
}
