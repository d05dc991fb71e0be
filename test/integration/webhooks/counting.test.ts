/**
 * The history counters' stream consumer against the local cloud's counts table: a batch
 * delivered again — the same, cut longer or shorter, or resumed at a reported failure — never
 * counts a record twice, in the day counters or in its webhook's health counters.
 */
import { randomUUID } from 'node:crypto';
import type { DynamoDBStreamEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { useLocalCloudEnv } from '../../support/api';

describe('history counting', () => {
  it('does not count a redelivered or re-cut stream batch twice', async () => {
    useLocalCloudEnv();
    const { countHistoryRecords, countedRecord, groupFrom } = await import(
      '../../../shared/webhooks/pipeline/history-counts'
    );
    const { sumCounters } = await import('../../../shared/webhooks/store/delivery-counts');
    const { historyId } = await import('../../../shared/webhooks/store/history-keys');
    const audience = `user#${Date.now()}${Math.floor(Math.random() * 1000)}`;
    const day = new Date().toISOString().slice(0, 10);
    const run = randomUUID();
    // A webhook id no other test uses: its health counters are this batch's alone.
    const webhookId = 800_000_000 + Math.floor(Math.random() * 100_000_000);
    const ids = Array.from({ length: 150 }, (_, n) => historyId(Date.now(), n % 1000));
    // 150 distinct types make the batch two transaction groups (99 counter items each at most).
    const records = Array.from({ length: 150 }, (_, n) => ({
      eventID: `${run}-${n}`,
      eventName: 'INSERT' as const,
      dynamodb: {
        SequenceNumber: String(5_000_000 + n),
        NewImage: {
          id: { N: String(ids[n]) },
          la: { S: `${audience}|s|${n % 8}` },
          lt: { S: `${audience}|type${n}|s|${n % 8}` },
          expiresAt: { N: String(Math.floor(Date.now() / 1000) + 86_400) },
          webhooksId: { N: String(webhookId) },
          statusCode: { N: n % 3 === 0 ? '200' : '500' },
        },
      },
    }));
    const batch = (from: number, to: number): DynamoDBStreamEvent => ({ Records: records.slice(from, to) });
    const secondGroup = groupFrom(records.map(countedRecord) as never, 0).end;
    expect(secondGroup).toBeLessThan(150);
    const count = () => sumCounters([`${audience}|s|${day}`]);

    expect(await countHistoryRecords(batch(0, 100))).toEqual({ batchItemFailures: [] });
    expect(await count()).toBe(100);
    // The same batch again (an invocation that timed out after its writes).
    await countHistoryRecords(batch(0, 100));
    expect(await count()).toBe(100);
    // Retried longer: only the new records count.
    await countHistoryRecords(batch(0, 150));
    expect(await count()).toBe(150);
    // Retried shorter, and resumed at a group's first record (where a partial failure resumes).
    await countHistoryRecords(batch(0, 30));
    await countHistoryRecords(batch(secondGroup, 150));
    expect(await count()).toBe(150);
    expect(await sumCounters([`${audience}|type7|s|${day}`, `${audience}|type149|s|${day}`])).toBe(2);

    // The webhook's health counters: each record once, and its newest attempt and success.
    const { healthItems } = await import('../../../shared/webhooks/store/health');
    const { healthFigures } = await import('../../../shared/webhooks/health-counters');
    const { createdAtOf } = await import('../../../shared/webhooks/store/history-keys');
    const now = Date.now();
    const figures = healthFigures(webhookId, await healthItems([webhookId], now), now);
    expect(figures).toMatchObject({
      attempts24h: 150,
      successRate24h: 0.3333,
      lastAttemptAt: createdAtOf(Math.max(...ids)),
      lastSuccessAt: createdAtOf(Math.max(...ids.filter((_, n) => n % 3 === 0))),
    });
  });
});
