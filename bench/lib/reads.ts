/**
 * Counts the DynamoDB reads a handler really performs, by adding a middleware to the shared
 * client's stack (the document client shares it): every read command gets
 * `ReturnConsumedCapacity: TOTAL`, and the meter adds up the items each call read (ScannedCount
 * for Query/Scan — the items DynamoDB evaluated, filtered or not — 1 per found item for
 * GetItem/BatchGetItem/TransactGetItems) and the read capacity units DynamoDB reports.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';

export interface ReadTally {
  calls: number;
  items: number;
  rcu: number;
  byCommand: Record<string, number>;
}

/** The DynamoDB commands that read (shared with the capacity meter). */
export const READS: ReadonlySet<string> = new Set([
  'GetItemCommand',
  'BatchGetItemCommand',
  'QueryCommand',
  'ScanCommand',
  'TransactGetItemsCommand',
]);

export class ReadMeter {
  private tally: ReadTally = ReadMeter.empty();
  private active = false;

  static empty(): ReadTally {
    return { calls: 0, items: 0, rcu: 0, byCommand: {} };
  }

  install(client: DynamoDBClient): void {
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const command = String((context as { commandName?: string }).commandName ?? '');
        if (!this.active || !READS.has(command)) return next(args);
        (args.input as Record<string, unknown>).ReturnConsumedCapacity = 'TOTAL';
        const result = await next(args);
        const out = result.output as unknown as Record<string, unknown>;
        let items = 0;
        if (command === 'GetItemCommand') items = out.Item ? 1 : 0;
        else if (command === 'QueryCommand' || command === 'ScanCommand')
          items = Number(out.ScannedCount ?? 0);
        else if (command === 'BatchGetItemCommand') {
          for (const list of Object.values((out.Responses ?? {}) as Record<string, unknown[]>))
            items += list.length;
        } else if (command === 'TransactGetItemsCommand') {
          items = ((out.Responses ?? []) as { Item?: unknown }[]).filter((r) => r.Item).length;
        }
        const consumed = out.ConsumedCapacity as
          | { CapacityUnits?: number }
          | { CapacityUnits?: number }[]
          | undefined;
        const rcu = (Array.isArray(consumed) ? consumed : consumed ? [consumed] : []).reduce(
          (sum, c) => sum + Number(c.CapacityUnits ?? 0),
          0,
        );
        this.tally.calls += 1;
        this.tally.items += items;
        this.tally.rcu += rcu;
        this.tally.byCommand[command] = (this.tally.byCommand[command] ?? 0) + 1;
        return result;
      },
      { step: 'initialize', name: 'causewayBenchReadMeter', override: true },
    );
  }

  /** Counts the reads `fn` causes (only one measured call at a time). */
  async measure<T>(fn: () => Promise<T>): Promise<{ result: T; reads: ReadTally }> {
    this.tally = ReadMeter.empty();
    this.active = true;
    try {
      const result = await fn();
      return { result, reads: this.tally };
    } finally {
      this.active = false;
    }
  }
}
