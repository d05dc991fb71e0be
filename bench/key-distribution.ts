/**
 * Figure 12 — key distribution on the delivery path (issue 23). Deliveries go through the real
 * `functions/consumers/deliver.ts` handler (SQS batches of 10, 4 concurrent invocations), 80 % of
 * them to global webhooks and 20 % to personal ones. A middleware on the shared DynamoDB client
 * asks every write for `ReturnConsumedCapacity: INDEXES` and charges the write units it reports
 * to the partition key they land on: the table's own key from the request, each global secondary
 * index's key from the item's attributes (an index the item has no key for is not written).
 * Reported: write units per attempt, the hottest partition key and its share of the units, and
 * the modelled service-wide ceiling — one partition takes about 1,000 WCU/s, so
 *   ceiling = 1,000 ÷ (hottest key's write units per attempt)
 * attempts per second before that key throttles. Counters are summed off the delivery path by the
 * history stream's consumer (one write per key and batch), so they are not on this path.
 */
import { randomBytes } from 'node:crypto';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { lambdaContext } from '../infra/local/lambda';
import { type TableDef, type TableName, tables } from '../shared/catalog/tables';
import { deliverHandler } from './delivery';
import { notification1Kb } from './fixtures/notification-1kb';
import { sqsEvent, sqsRecord } from './lib/cloud';
import { startReceiver } from './lib/receiver';
import { round, runPool } from './lib/stats';

const NOTIFICATION = 'modelAccessRequested';
const WRITES = new Set(['PutItemCommand', 'UpdateItemCommand', 'DeleteItemCommand']);
/** The write units one partition takes per second. */
const PARTITION_WCU_PER_SECOND = 1000;

export interface KeyDistributionResult {
  attempts: number;
  globalShare: number;
  wcuPerAttempt: number;
  /** The same deliveries with a realistic 1 KB notification (bench/fixtures/notification-1kb.ts). */
  wcuPerAttempt1Kb: { attempts: number; payloadBytes: number; wcuPerAttempt: number };
  hottestKey: string;
  hottestShare: number;
  hottestWcuPerAttempt: number;
  modelledCeiling: number;
  /** The five hottest keys with their write units. */
  top: { key: string; wcu: number }[];
  target: { ceilingAtLeast: number; met: boolean; wcuPerAttemptAtMost: number; wcuMet: boolean };
}

type Attribute = Record<string, unknown> | string | number | undefined;

/** A key attribute's value, whether the request carries it marshalled ({S: …}) or plain. */
function plain(value: Attribute): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'object') {
    const typed = value as { S?: string; N?: string };
    return typed.S ?? typed.N;
  }
  return String(value);
}

class KeyMeter {
  readonly units = new Map<string, number>();
  total = 0;
  private active = false;

  install(client: DynamoDBClient, physicalName: (logical: TableName) => string): void {
    const byPhysical = new Map<string, TableDef>(tables.map((t) => [physicalName(t.name), t]));
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const command = String((context as { commandName?: string }).commandName ?? '');
        if (!this.active || !WRITES.has(command)) return next(args);
        const input = args.input as {
          TableName?: string;
          Key?: Record<string, Attribute>;
          Item?: Record<string, Attribute>;
          ReturnConsumedCapacity?: string;
        };
        input.ReturnConsumedCapacity = 'INDEXES';
        const result = await next(args);
        const consumed = (
          result.output as {
            ConsumedCapacity?: {
              CapacityUnits?: number;
              Table?: { CapacityUnits?: number };
              GlobalSecondaryIndexes?: Record<string, { CapacityUnits?: number }>;
            };
          }
        ).ConsumedCapacity;
        const def = byPhysical.get(input.TableName ?? '');
        if (!consumed || !def) return result;
        const attributes = { ...(input.Item ?? {}), ...(input.Key ?? {}) };
        const tableUnits = Number(consumed.Table?.CapacityUnits ?? consumed.CapacityUnits ?? 0);
        this.charge(
          `${def.name} ${def.partitionKey.name}=${plain(attributes[def.partitionKey.name])}`,
          tableUnits,
        );
        for (const index of def.indexes ?? []) {
          const value = plain(attributes[index.partitionKey.name]);
          if (value === undefined) continue;
          const reported = consumed.GlobalSecondaryIndexes?.[index.name]?.CapacityUnits;
          // A keys-only entry is under 1 KB: 1 unit, when the emulator does not itemise indexes.
          this.charge(`${def.name}.${index.name} ${index.partitionKey.name}=${value}`, Number(reported ?? 1));
        }
        return result;
      },
      { step: 'initialize', name: 'causewayBenchKeyMeter', override: true },
    );
  }

  private charge(key: string, units: number): void {
    this.units.set(key, (this.units.get(key) ?? 0) + units);
    this.total += units;
  }

  async measure<T>(fn: () => Promise<T>): Promise<T> {
    this.units.clear();
    this.total = 0;
    this.active = true;
    try {
      return await fn();
    } finally {
      this.active = false;
    }
  }
}

export async function keyDistribution(options: {
  deliveries: number;
  globalShare: number;
}): Promise<KeyDistributionResult> {
  const receiver = await startReceiver();
  const { createWebhooks, deleteWebhook } = await import('../shared/webhooks/api/webhooks');
  /**
   * Every webhook made here, deleted at the end: the global ones subscribe every owner's
   * `modelAccessRequested` notifications, and later figures publish those through this cloud's
   * pipeline (a leftover global webhook would take four more deliveries of each, to a closed
   * receiver, and their retries: it once stalled figure 18).
   */
  const made: { caller: Parameters<typeof deleteWebhook>[0]; id: number }[] = [];
  try {
    const handler = await deliverHandler();
    const { createPrincipalWithKey } = await import('../shared/auth/keys');
    const { dynamodb } = await import('../shared/store/clients');
    const { tableName } = await import('../shared/store/tables');

    const hook = (path: string, global: boolean) => ({
      url: `${receiver.url}${path}`,
      name: `bench keys ${path}`,
      global,
      notificationType: [NOTIFICATION],
      actionType: 'triggered' as const,
      secret: `whsec_${randomBytes(32).toString('base64')}`,
    });
    const admin = await createPrincipalWithKey('bench-keys-admin', ['APPLICATION_ADMIN']);
    const adminPrincipal = {
      userId: admin.userId,
      name: admin.name,
      permissions: ['APPLICATION_ADMIN' as const],
    };
    const globals = await createWebhooks(
      adminPrincipal,
      Array.from({ length: 4 }, (_, i) => hook(`/g${i}`, true)),
      'http://localhost',
    );
    for (const w of globals.createdWebhooks) made.push({ caller: adminPrincipal, id: w.id });
    const personal: { id: number; ownerId: number }[] = [];
    for (let i = 0; i < 20; i++) {
      const owner = await createPrincipalWithKey(`bench-keys-${i}`, []);
      const caller = { userId: owner.userId, name: owner.name, permissions: [] };
      const out = await createWebhooks(caller, [hook(`/u${i}`, false)], 'http://localhost');
      for (const w of out.createdWebhooks) {
        personal.push({ id: w.id, ownerId: owner.userId });
        made.push({ caller, id: w.id });
      }
    }
    const globalHooks = globals.createdWebhooks.map((w) => ({ id: w.id, ownerId: admin.userId }));
    if (globalHooks.length !== 4 || personal.length !== 20) throw new Error('bench webhooks refused');

    const meter = new KeyMeter();
    meter.install(dynamodb, tableName);
    let n = 0;
    const body = (size: 'small' | '1kb') => {
      const i = n++;
      const global = (i % 100) / 100 < options.globalShare;
      const target = global ? globalHooks[i % globalHooks.length] : personal[i % personal.length];
      if (!target) throw new Error('no target');
      const notification =
        size === '1kb'
          ? notification1Kb(i)
          : {
              text: `user ${target.ownerId} requested access to data source ${i}`,
              metadata: {
                modelId: i,
                modelType: 'datasource',
                targetUser: target.ownerId,
                actionBy: target.ownerId,
              },
            };
      return JSON.stringify({
        v: 1,
        deliveryId: `msg_${randomBytes(16).toString('hex')}_${target.id}`,
        webhookId: target.id,
        activityId: i,
        notificationType: NOTIFICATION,
        text: notification.text,
        metadata: notification.metadata,
      });
    };
    /** Sends `deliveries` through the handler (batches of 10, 4 at a time) while the meter runs. */
    const run = async (deliveries: number, size: 'small' | '1kb'): Promise<number> => {
      const batches = Math.ceil(deliveries / 10);
      let failed = 0;
      await meter.measure(() =>
        runPool(batches, 4, async () => {
          const records = Array.from({ length: 10 }, () => sqsRecord(body(size)));
          const out = await handler(sqsEvent(records), lambdaContext('bench-keys', 60_000));
          failed += out?.batchItemFailures?.length ?? 0;
        }),
      );
      if (failed > 0) throw new Error(`${failed} deliveries failed in the key-distribution run`);
      if (meter.total === 0) throw new Error('no write was metered: the meter sees no command');
      return batches * 10;
    };
    // A warm-up batch first: the consumer's container leases its history id slot with its first
    // record (one write per container every ~10 minutes, not a cost of each attempt).
    await run(10, 'small');
    // The 1 KB round next: the key distribution's counts are the meter's last run.
    const attempts1Kb = await run(Math.max(100, Math.round(options.deliveries / 10)), '1kb');
    const wcuPerAttempt1Kb = round(meter.total / attempts1Kb, 2);
    const attempts = await run(options.deliveries, 'small');
    const ranked = [...meter.units.entries()].sort((a, b) => b[1] - a[1]);
    const [hottestKey, hottestUnits] = ranked[0] ?? ['none', 0];
    const hottestWcuPerAttempt = hottestUnits / attempts;
    const modelledCeiling = Math.floor(PARTITION_WCU_PER_SECOND / hottestWcuPerAttempt);
    const wcuPerAttempt = round(meter.total / attempts, 2);
    const sample = notification1Kb(0);
    return {
      attempts,
      globalShare: options.globalShare,
      wcuPerAttempt,
      wcuPerAttempt1Kb: {
        attempts: attempts1Kb,
        // As delivered: the payload adds the webhook's id and name to the notification.
        payloadBytes: Buffer.byteLength(
          JSON.stringify({
            text: sample.text,
            metadata: sample.metadata,
            webhookId: 1000,
            webhookName: 'bench keys /g0',
          }),
        ),
        wcuPerAttempt: wcuPerAttempt1Kb,
      },
      hottestKey,
      hottestShare: round(hottestUnits / meter.total, 4),
      hottestWcuPerAttempt: round(hottestWcuPerAttempt, 4),
      modelledCeiling,
      top: ranked.slice(0, 5).map(([key, wcu]) => ({ key, wcu: round(wcu, 1) })),
      target: {
        ceilingAtLeast: 10_000,
        met: modelledCeiling >= 10_000,
        wcuPerAttemptAtMost: 4,
        wcuMet: Math.max(wcuPerAttempt, wcuPerAttempt1Kb) <= 4,
      },
    };
  } finally {
    for (const { caller, id } of made) await deleteWebhook(caller, id, 'http://localhost');
    await receiver.close();
  }
}
