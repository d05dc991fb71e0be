/**
 * Figure 18, ordered delivery per key (issue 41, ADR 0020), end to end through the bench's local
 * cloud: keyed notifications over 100 keys, published through the real publisher (the FIFO
 * intake), fanned out and delivered by the cloud's consumers to a loopback receiver. Rounds
 * alternate between an ordered webhook (the ordered deliveries queue, a group per key) and an
 * unordered one (the deliveries queue) of another owner, the same notifications otherwise:
 * deliveries/s from the first publish to the last delivery, and order violations counted per key
 * over every ordered delivery (a delivery whose index is below one its key already delivered).
 * Then rounds on the ordered webhook alternate between one key parked (in the store, as the
 * consumer parks it: the key's deliveries are appended to its log) and none: the 99 other keys'
 * deliveries/s, from the first publish to their last delivery.
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { BenchCloud } from './lib/cloud';
import { round } from './lib/stats';
import { ownerWithWebhook } from './lib/webhook-owner';

export interface OrderingResult {
  keys: number;
  orderedDeliveries: number;
  unorderedDeliveries: number;
  orderedPerSecond: number;
  unorderedPerSecond: number;
  ratio: number;
  violations: number;
  duplicates: number;
  /** The 99 other keys' deliveries/s while one key is parked, and in the same rounds without. */
  parkedNeighboursPerSecond: number;
  unparkedNeighboursPerSecond: number;
  parkedRatio: number;
  /** Deliveries of the parked keys kept waiting in their logs (each round's parked key: all of them). */
  parkedWaiting: number;
  parkedExpected: number;
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
  const { publishNotifications } = await import('../shared/notifications/publisher');
  const gateway = bench.cloud.endpoints.gateway;
  const receiver = await textReceiver();
  try {
    const tag = randomBytes(4).toString('hex');
    const owners: Record<'ordered' | 'unordered', number> = { ordered: 0, unordered: 0 };
    const webhookIds: Record<'ordered' | 'unordered', number> = { ordered: 0, unordered: 0 };
    for (const kind of ['ordered', 'unordered'] as const) {
      const made = await ownerWithWebhook(gateway, `bench-ordering-${kind}-${tag}`, {
        name: `bench ordering ${kind}`,
        url: receiver.url(`/${kind}`),
        notificationType: NOTIFICATION,
        ordered: kind === 'ordered',
      });
      owners[kind] = made.userId;
      webhookIds[kind] = made.webhookId;
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
            throw new Error(
              `figure 18: ${kind} round ${roundNo} hung: ${receiver.texts(`/${kind}`).length - before} of ${perRound} delivered in ${HANG_GUARD_MS / 60_000} minutes`,
            );
          await new Promise((r) => setTimeout(r, 50));
        }
        totals[kind].count += perRound;
        totals[kind].ms += Date.now() - started;
      }
    }
    const neighbours = await parkedNeighbours(publishNotifications, receiver, {
      tag,
      owner: owners.ordered,
      webhookId: webhookIds.ordered,
      // A quarter of a throughput round each (four rounds): 2,500 deliveries in a full run.
      perRound: Math.max(KEYS, Math.ceil(perRound / 4 / KEYS) * KEYS),
      firstRound: roundNo,
    });
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
      ...neighbours,
    };
  } finally {
    await receiver.close();
  }
}

/**
 * Rounds on the ordered webhook, alternating between key 0 parked and no key parked: the other
 * keys' deliveries/s in each. The parked key is parked as the consumer parks it (its state item
 * and a head in its log, ../shared/webhooks/store/ordered-keys.ts), so each of its deliveries in
 * the round takes the parked path (read the key, append to its log) beside its flowing neighbours.
 */
async function parkedNeighbours(
  publish: typeof import('../shared/notifications/publisher')['publishNotifications'],
  receiver: Awaited<ReturnType<typeof textReceiver>>,
  run: { tag: string; owner: number; webhookId: number; perRound: number; firstRound: number },
) {
  const { keyState, parkFlowingKey, waitingOf } = await import('../shared/webhooks/store/ordered-keys');
  const totals = { parked: { count: 0, ms: 0 }, unparked: { count: 0, ms: 0 } };
  let roundNo = run.firstRound;
  let parkedWaiting = 0;
  let parkedExpected = 0;
  for (const kind of ['unparked', 'parked', 'parked', 'unparked'] as const) {
    roundNo += 1;
    const keyOf = (key: number) => `bench:${run.tag}:${roundNo}:${key}`;
    if (kind === 'parked') {
      const parked = await parkFlowingKey(
        {
          v: 1,
          deliveryId: `msg_${randomBytes(16).toString('hex')}_${run.webhookId}`,
          webhookId: run.webhookId,
          activityId: roundNo,
          notificationType: NOTIFICATION,
          text: `${roundNo}:0:head`,
          metadata: {},
          orderingKey: keyOf(0),
        },
        'parked',
        { headAttempts: 8, lastError: 'HTTP 503' },
      );
      if (!parked) throw new Error('figure 18: the key was not parked');
    }
    const inputs = Array.from({ length: run.perRound }, (_, n) => ({
      notificationType: NOTIFICATION,
      text: `${roundNo}:${n % KEYS}:${Math.floor(n / KEYS)}`,
      recipients: [run.owner],
      orderingKey: keyOf(n % KEYS),
    }));
    const neighbours = inputs.filter((input) => !input.text.startsWith(`${roundNo}:0:`)).length;
    const arrived = () =>
      receiver.texts('/ordered').filter((t) => t.startsWith(`${roundNo}:`) && !t.startsWith(`${roundNo}:0:`))
        .length;
    const started = Date.now();
    for (let i = 0; i < inputs.length; i += 100) await publish(inputs.slice(i, i + 100));
    while (arrived() < neighbours) {
      if (Date.now() - started > HANG_GUARD_MS)
        throw new Error(
          `figure 18: ${kind} round ${roundNo} hung: ${arrived()} of ${neighbours} delivered in ${HANG_GUARD_MS / 60_000} minutes`,
        );
      await new Promise((r) => setTimeout(r, 50));
    }
    totals[kind].count += neighbours;
    totals[kind].ms += Date.now() - started;
    if (kind === 'parked') {
      // Every delivery of the parked key was kept, behind its head (waited for: fan-out may trail).
      const expected = 1 + (inputs.length - neighbours);
      const until = Date.now() + HANG_GUARD_MS;
      let state = await keyState(run.webhookId, keyOf(0));
      while (state && waitingOf(state) < expected && Date.now() < until) {
        await new Promise((r) => setTimeout(r, 100));
        state = await keyState(run.webhookId, keyOf(0));
      }
      parkedWaiting += state ? waitingOf(state) : 0;
      parkedExpected += expected;
    }
  }
  const parkedPerSecond = (totals.parked.count / totals.parked.ms) * 1000;
  const unparkedPerSecond = (totals.unparked.count / totals.unparked.ms) * 1000;
  return {
    parkedNeighboursPerSecond: round(parkedPerSecond, 1),
    unparkedNeighboursPerSecond: round(unparkedPerSecond, 1),
    parkedRatio: round(parkedPerSecond / unparkedPerSecond),
    parkedWaiting,
    parkedExpected,
  };
}
