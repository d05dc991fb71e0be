import { describe, expect, it } from 'vitest';
import {
  filterErrorAdd,
  healthFigures,
  healthKeys,
  hourlyAdds,
  latencyFigures,
  rateWindowStart,
  type StreakChange,
  streakChange,
  webhookDayKey,
  webhookLatestKey,
} from '../../../shared/webhooks/health-counters';
import { countedRecord, groupFrom } from '../../../shared/webhooks/pipeline/history-counts';
import { historyId } from '../../../shared/webhooks/store/history-keys';

const at = (iso: string) => Date.parse(iso);
const items = (entries: Record<string, Record<string, unknown>>) => ({ get: (key: string) => entries[key] });

describe('webhook health counters', () => {
  it('adds each record to its hour: an attempt, and a success only for a 2xx', () => {
    const id = historyId(at('2026-03-10T07:59:59.999Z'), 4);
    expect(hourlyAdds(12, id, 204)).toEqual([
      { key: 'wh|12|2026-03-10', attr: 'a07' },
      { key: 'wh|12|2026-03-10', attr: 's07' },
    ]);
    expect(hourlyAdds(12, id, 0)).toEqual([{ key: 'wh|12|2026-03-10', attr: 'a07' }]);
    expect(hourlyAdds(12, id, 302)).toHaveLength(1);
  });

  it('reads yesterday too while the last 24 hours reach into it', () => {
    expect(healthKeys(5, at('2026-03-10T23:30:00Z'))).toEqual([
      webhookLatestKey(5),
      webhookDayKey(5, '2026-03-10'),
    ]);
    expect(healthKeys(5, at('2026-03-10T22:59:00Z'))).toEqual([
      webhookLatestKey(5),
      webhookDayKey(5, '2026-03-09'),
      webhookDayKey(5, '2026-03-10'),
    ]);
  });

  it('takes the rate over the current hour and the 23 before it, across midnight', () => {
    const now = at('2026-03-10T05:20:00Z');
    const figures = healthFigures(
      5,
      items({
        'wh|5|2026-03-10': { a05: 3, s05: 3, a00: 2, s00: 1 },
        // 06 of yesterday is 23 hours before 05: inside; 05 of yesterday is 24 hours before: outside.
        'wh|5|2026-03-09': { a06: 4, s06: 0, a05: 100, s05: 100 },
      }),
      now,
    );
    expect(figures).toMatchObject({ attempts24h: 9, successRate24h: 0.4444 });
    expect(healthFigures(5, items({}), now)).toEqual({
      attempts24h: 0,
      successRate24h: null,
      filterErrors: 0,
      consecutiveFailures: 0,
    });
  });

  it('counts filter errors per hour over the same 24 hours, apart from the attempts', () => {
    const now = at('2026-03-10T05:20:00Z');
    expect(filterErrorAdd(5, now)).toEqual({ key: 'wh|5|2026-03-10', attr: 'f05' });
    const figures = healthFigures(
      5,
      items({
        'wh|5|2026-03-10': { f05: 2, f00: 1 },
        'wh|5|2026-03-09': { f06: 4, f05: 100 },
      }),
      now,
    );
    expect(figures).toEqual({
      attempts24h: 0,
      successRate24h: null,
      filterErrors: 7,
      consecutiveFailures: 0,
    });
  });

  it('names the newest attempt and success, and shows the streak while the newest attempt failed', () => {
    const now = at('2026-03-10T05:20:00Z');
    const la = historyId(at('2026-03-10T05:00:00Z'), 1);
    const ls = historyId(at('2026-03-10T04:00:00Z'), 2);
    const failing = healthFigures(7, items({ 'wh|7': { la, ls, fs: 12 } }), now);
    expect(failing).toMatchObject({
      lastAttemptAt: '2026-03-10T05:00:00.000Z',
      lastSuccessAt: '2026-03-10T04:00:00.000Z',
      consecutiveFailures: 12,
    });
    // Never succeeded; counted up to 1,000.
    expect(healthFigures(7, items({ 'wh|7': { la, fs: 5000 } }), now).consecutiveFailures).toBe(1000);
    // The newest ids are raised before the groups are added: a failure read before its count is 1.
    expect(healthFigures(7, items({ 'wh|7': { la, ls } }), now).consecutiveFailures).toBe(1);
    // A 2xx is the newest attempt: no streak, whatever a late group left.
    expect(healthFigures(7, items({ 'wh|7': { la: ls, ls, fs: 3 } }), now).consecutiveFailures).toBe(0);
  });

  it('a group sets the streak after a 2xx of the webhook and adds to it otherwise, in stream order', () => {
    expect(
      [false, false].reduce<StreakChange | undefined>((c, ok) => streakChange(c, ok), undefined),
    ).toEqual({
      op: 'add',
      n: 2,
    });
    expect(
      [false, true, false, false].reduce<StreakChange | undefined>((c, ok) => streakChange(c, ok), undefined),
    ).toEqual({ op: 'set', n: 2 });
    expect([false, true].reduce<StreakChange | undefined>((c, ok) => streakChange(c, ok), undefined)).toEqual(
      {
        op: 'set',
        n: 0,
      },
    );
  });

  it('counts a webhook’s records from the stream into its hourly items, one transaction item per key', () => {
    const record = (n: number, statusCode: number) => ({
      eventID: `e${n}`,
      eventName: 'INSERT' as const,
      dynamodb: {
        SequenceNumber: String(100 + n),
        NewImage: {
          id: { N: String(historyId(at('2026-03-10T12:00:00Z'), n)) },
          la: { S: 'user#2|f|1' },
          lt: { S: 'user#2|queryCreated|f|1' },
          expiresAt: { N: '1775000000' },
          webhooksId: { N: '9' },
          statusCode: { N: String(statusCode) },
        },
      },
    });
    const counted = [record(1, 500), record(2, 200), record(3, 503)].map(countedRecord);
    expect(counted[1]?.attempt).toEqual({
      webhookId: 9,
      id: historyId(at('2026-03-10T12:00:00Z'), 2),
      ok: true,
    });
    const { group } = groupFrom(counted as never, 0);
    expect(Object.fromEntries(group.deltas.get('wh|9|2026-03-10')?.adds ?? [])).toEqual({ a12: 3, s12: 1 });
    // The failure after the 2xx: the streak is set to 1 on the webhook's own item.
    expect(group.deltas.get('wh|9')).toMatchObject({ adds: new Map(), sets: new Map([['fs', 1]]) });
    expect(group.deltas.size).toBe(4);
    const failures = groupFrom([counted[0], counted[2]] as never, 0).group;
    expect(failures.deltas.get('wh|9')).toMatchObject({ adds: new Map([['fs', 2]]) });
    expect(failures.deltas.get('wh|9')?.sets).toBeUndefined();
  });

  it('latency: p50 and p95 by nearest rank over the durations given, null without any', () => {
    expect(latencyFigures([])).toBeNull();
    expect(latencyFigures([42])).toEqual({ p50Ms: 42, p95Ms: 42, samples: 1 });
    // 1..20 shuffled: rank ceil(0.5 × 20) = 10, rank ceil(0.95 × 20) = 19.
    const twenty = Array.from({ length: 20 }, (_, i) => ((i * 7) % 20) + 1);
    expect(latencyFigures(twenty)).toEqual({ p50Ms: 10, p95Ms: 19, samples: 20 });
    // One slow answer among three: the median ignores it, the 95th percentile is it.
    expect(latencyFigures([900, 10, 20])).toEqual({ p50Ms: 20, p95Ms: 900, samples: 3 });
  });

  it('the 24 h figures start at the hour 23 hours before the current one', () => {
    expect(new Date(rateWindowStart(at('2026-03-10T05:20:00Z'))).toISOString()).toBe(
      '2026-03-09T06:00:00.000Z',
    );
  });
});
