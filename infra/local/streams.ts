/**
 * DynamoDB stream pollers that behave like the Lambda DynamoDB event source mapping: read each
 * shard of a table's stream in order (a parent shard before its children), hand up to
 * `batchSize` records to the consumer as a DynamoDB stream event, and resume after the last
 * record it accepted — or from the record its `batchItemFailures` names, as Lambda does with
 * partial batch responses. A thrown handler error retries the same records after a pause.
 *
 * Where each shard stands is saved under `<stateDir>/streams/` after every batch, so a restarted
 * cloud goes on where it stopped (the consumer is idempotent too, so a replay does no harm).
 *
 * A poller reads its stream when something may have changed it, not four times a second: the
 * handlers run in this process, so every DynamoDB write they (or anything else here) make wakes
 * the pollers (`onDynamoWrites`), and a poller that saw no write in this process still reads its
 * stream every `quietMs` (for writes from other processes: a test seeding a table). An idle
 * cloud's stream reads were half of its CPU (1.1 of 2.0 CPU-seconds in 30 s, Node and JVM).
 */

import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import type { ClientRequest } from 'node:http';
import { join } from 'node:path';
import { DescribeTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type Shard,
  type _Record as StreamRecord,
} from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import type { StreamConsumerDef } from '../../shared/catalog/streams';
import { withoutSdkLogging } from '../../shared/config/sdk-clients';
import { emulatorClientConfig } from './env';
import { invoke } from './lambda';

export function localStreamsClient(endpoint: string): DynamoDBStreamsClient {
  return withoutSdkLogging(new DynamoDBStreamsClient(emulatorClientConfig(endpoint)));
}

export interface StreamPollerOptions {
  dynamodb: DynamoDBClient;
  streams: DynamoDBStreamsClient;
  tableName: string;
  def: StreamConsumerDef;
  functionName: string;
  stateDir: string;
  /** Pause between polls when a poll found nothing, at least (written records wait up to this). */
  idleMs: number;
  /** Pause between polls when a poll found nothing and no write in this process woke the poller. */
  quietMs: number;
  onError?: (error: unknown) => void;
}

const RETRY_PAUSE_MS = 1000;
/** How long a described shard list is used before the stream is described again. */
const SHARD_LIST_MS = 10_000;

export class StreamPoller {
  private stopping = false;
  private loop: Promise<void> | undefined;
  private streamArn: string | undefined;
  private readonly iterators = new Map<string, string>();
  private shardList: { shards: Shard[]; at: number; finished: number } | undefined;
  private readonly finished = new Set<string>();
  private readonly checkpoints: Record<string, string>;
  private readonly checkpointFile: string;
  /** A write happened since the last poll began (`wake`). */
  private woken = false;
  /** Ends the current quiet wait early. */
  private wakeUp: (() => void) | undefined;

  constructor(private readonly options: StreamPollerOptions) {
    const dir = join(options.stateDir, 'streams');
    mkdirSync(dir, { recursive: true });
    this.checkpointFile = join(dir, `${options.def.name}.json`);
    this.checkpoints = readCheckpoints(this.checkpointFile);
  }

  start(): void {
    this.loop = this.run();
  }

  private async run(): Promise<void> {
    while (!this.stopping) {
      let busy = false;
      try {
        busy = await this.pollOnce();
      } catch (error) {
        if (this.stopping) return;
        this.options.onError?.(error);
        await sleep(RETRY_PAUSE_MS);
      }
      if (!busy) await this.idle();
    }
  }

  /** A write may have added records: poll again once `idleMs` has passed since the last poll. */
  wake(): void {
    this.woken = true;
    this.wakeUp?.();
  }

  /** Waits for a write (or `quietMs`), then out the rest of `idleMs`: polls stay that far apart. */
  private async idle(): Promise<void> {
    const since = Date.now();
    // A stop that came during the poll (while no wait could be ended) must not wait `quietMs`.
    if (!this.woken && !this.stopping) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, this.options.quietMs);
        this.wakeUp = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wakeUp = undefined;
    }
    this.woken = false;
    const left = this.options.idleMs - (Date.now() - since);
    if (left > 0 && !this.stopping) await sleep(left);
  }

  /** One pass over the open shards; true when some shard had records. */
  async pollOnce(): Promise<boolean> {
    this.streamArn ??= (
      await this.options.dynamodb.send(new DescribeTableCommand({ TableName: this.options.tableName }))
    ).Table?.LatestStreamArn;
    if (!this.streamArn) throw new Error(`table ${this.options.tableName} has no stream`);
    const shards = await this.knownShards(this.streamArn);
    const known = new Set(shards.map((s) => s.ShardId));
    let busy = false;
    for (const shard of shards) {
      const id = shard.ShardId;
      if (!id || this.finished.has(id)) continue;
      const parent = shard.ParentShardId;
      if (parent && known.has(parent) && !this.finished.has(parent)) continue;
      if (this.stopping) break;
      busy = (await this.pollShard(this.streamArn, id)) || busy;
    }
    return busy;
  }

  /**
   * The stream's shards, described again only when a shard has ended (its child is new) or
   * SHARD_LIST_MS has passed, as Lambda discovers shards periodically: a DescribeStream on every
   * poll (four a second per stream, in every local cloud) was most of what an idle cloud's
   * DynamoDB Local spent.
   */
  private async knownShards(streamArn: string): Promise<Shard[]> {
    const listed = this.shardList;
    if (listed && listed.finished === this.finished.size && Date.now() - listed.at < SHARD_LIST_MS)
      return listed.shards;
    const shards = await this.shards(streamArn);
    this.shardList = { shards, at: Date.now(), finished: this.finished.size };
    return shards;
  }

  private async shards(streamArn: string): Promise<Shard[]> {
    const shards: Shard[] = [];
    let start: string | undefined;
    do {
      const out = await this.options.streams.send(
        new DescribeStreamCommand({ StreamArn: streamArn, ExclusiveStartShardId: start }),
      );
      shards.push(...(out.StreamDescription?.Shards ?? []));
      start = out.StreamDescription?.LastEvaluatedShardId;
    } while (start);
    return shards;
  }

  private async iterator(streamArn: string, shardId: string): Promise<string | undefined> {
    const cached = this.iterators.get(shardId);
    if (cached) return cached;
    const after = this.checkpoints[shardId];
    const out = await this.options.streams.send(
      new GetShardIteratorCommand({
        StreamArn: streamArn,
        ShardId: shardId,
        ...(after
          ? { ShardIteratorType: 'AFTER_SEQUENCE_NUMBER', SequenceNumber: after }
          : { ShardIteratorType: 'TRIM_HORIZON' }),
      }),
    );
    return out.ShardIterator;
  }

  private async pollShard(streamArn: string, shardId: string): Promise<boolean> {
    const iterator = await this.iterator(streamArn, shardId);
    if (!iterator) {
      this.finished.add(shardId);
      return false;
    }
    const out = await this.options.streams
      .send(new GetRecordsCommand({ ShardIterator: iterator, Limit: this.options.def.batchSize }))
      .catch((error: unknown) => {
        // An expired or trimmed iterator: start again from the checkpoint.
        this.iterators.delete(shardId);
        throw error;
      });
    const records = out.Records ?? [];
    if (records.length > 0) {
      const resumeAt = await this.deliver(records);
      if (resumeAt !== undefined) {
        // Resume at the failed record: the next poll gets an iterator after the one before it.
        const index = records.findIndex((r) => r.dynamodb?.SequenceNumber === resumeAt);
        if (index > 0) this.checkpoint(shardId, records[index - 1]?.dynamodb?.SequenceNumber);
        this.iterators.delete(shardId);
        await sleep(RETRY_PAUSE_MS);
        return true;
      }
      this.checkpoint(shardId, records.at(-1)?.dynamodb?.SequenceNumber);
    }
    if (out.NextShardIterator) this.iterators.set(shardId, out.NextShardIterator);
    else {
      this.iterators.delete(shardId);
      this.finished.add(shardId);
    }
    return records.length > 0;
  }

  /** Invokes the consumer; the sequence number to resume at when it reported a failure. */
  private async deliver(records: StreamRecord[]): Promise<string | undefined> {
    const { def } = this.options;
    const event: DynamoDBStreamEvent = { Records: records.map((r) => this.toRecord(r)) };
    try {
      const response = await invoke<DynamoDBBatchResponse | undefined>(
        {
          handler: def.handler,
          name: this.options.functionName,
          timeoutSeconds: def.timeoutSeconds,
          access: def,
        },
        event,
      );
      return response?.batchItemFailures?.[0]?.itemIdentifier;
    } catch (error) {
      this.options.onError?.(error);
      return records[0]?.dynamodb?.SequenceNumber;
    }
  }

  private checkpoint(shardId: string, sequence: string | undefined): void {
    if (sequence === undefined) return;
    this.checkpoints[shardId] = sequence;
    writeFileSync(this.checkpointFile, `${JSON.stringify(this.checkpoints)}\n`);
  }

  private toRecord(record: StreamRecord): DynamoDBRecord {
    const data = record.dynamodb ?? {};
    const created = data.ApproximateCreationDateTime;
    return {
      eventID: record.eventID,
      eventName: record.eventName,
      eventVersion: record.eventVersion ?? '1.1',
      eventSource: 'aws:dynamodb',
      awsRegion: 'us-east-1',
      eventSourceARN: this.streamArn,
      dynamodb: {
        ...(created ? { ApproximateCreationDateTime: Math.floor(new Date(created).getTime() / 1000) } : {}),
        Keys: data.Keys as never,
        NewImage: data.NewImage as never,
        ...(data.OldImage ? { OldImage: data.OldImage as never } : {}),
        SequenceNumber: data.SequenceNumber,
        SizeBytes: data.SizeBytes,
        StreamViewType: data.StreamViewType,
      },
    };
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.wakeUp?.();
    await this.loop;
  }
}

/** DynamoDB operations that may add stream records. */
const WRITE_TARGET = /\.(PutItem|UpdateItem|DeleteItem|BatchWriteItem|TransactWriteItems)$/;

/**
 * Calls `listener` after each write request that the DynamoDB at `endpoint` answered in this
 * process (Node's `http.client.response.finish` channel: the SDK's clients need no change).
 * Returns the unsubscribe.
 */
export function onDynamoWrites(endpoint: string, listener: () => void): () => void {
  const host = new URL(endpoint).host;
  const onFinish = (message: unknown) => {
    const { request } = message as { request?: ClientRequest };
    if (!request || request.getHeader('host') !== host) return;
    const target = request.getHeader('x-amz-target');
    if (typeof target === 'string' && WRITE_TARGET.test(target)) listener();
  };
  subscribe('http.client.response.finish', onFinish);
  return () => unsubscribe('http.client.response.finish', onFinish);
}

function readCheckpoints(file: string): Record<string, string> {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>;
  } catch {
    return {};
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
