/**
 * Sums the read and write capacity units DynamoDB reports for every command sent through a client
 * (the shared document client uses it): a middleware asks each command for
 * `ReturnConsumedCapacity: TOTAL`. Used while one measured workload runs at a time.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { READS } from './reads';

const WRITES = new Set([
  'PutItemCommand',
  'UpdateItemCommand',
  'DeleteItemCommand',
  'BatchWriteItemCommand',
  'TransactWriteItemsCommand',
]);

export interface CapacityTally {
  rcu: number;
  wcu: number;
  reads: number;
  writes: number;
}

type Consumed = { CapacityUnits?: number } | { CapacityUnits?: number }[] | undefined;

const units = (consumed: Consumed) =>
  (Array.isArray(consumed) ? consumed : consumed ? [consumed] : []).reduce(
    (sum, c) => sum + Number(c.CapacityUnits ?? 0),
    0,
  );

export class CapacityMeter {
  private tally: CapacityTally = { rcu: 0, wcu: 0, reads: 0, writes: 0 };
  private active = false;

  install(client: DynamoDBClient): void {
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const command = String((context as { commandName?: string }).commandName ?? '');
        const read = READS.has(command);
        if (!this.active || !(read || WRITES.has(command))) return next(args);
        (args.input as Record<string, unknown>).ReturnConsumedCapacity = 'TOTAL';
        const result = await next(args);
        const consumed = units((result.output as { ConsumedCapacity?: Consumed }).ConsumedCapacity);
        if (read) {
          this.tally.rcu += consumed;
          this.tally.reads += 1;
        } else {
          this.tally.wcu += consumed;
          this.tally.writes += 1;
        }
        return result;
      },
      { step: 'initialize', name: 'causewayBenchCapacityMeter', override: true },
    );
  }

  /** The units `fn` consumed. */
  async measure<T>(fn: () => Promise<T>): Promise<{ result: T; capacity: CapacityTally }> {
    this.tally = { rcu: 0, wcu: 0, reads: 0, writes: 0 };
    this.active = true;
    try {
      return { result: await fn(), capacity: { ...this.tally } };
    } finally {
      this.active = false;
    }
  }
}
