/**
 * GET /webhooks/history's `webhookId`, `since` and `until` filters against a brute-force
 * reference: every record the caller sees, filtered, sorted and sliced here. Records of one
 * user's two webhooks, another user's webhook and a global webhook, spread over time.
 */
import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { call, createKey, useLocalCloudEnv } from '../../support/api';
import { type AnyRecord, allHistory } from './helpers';

type Query = Record<string, string | number | undefined>;

const qs = (query: Query) =>
  Object.entries(query)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `&${k}=${encodeURIComponent(String(v))}`)
    .join('');

const TYPES = ['modelAccessRequested', 'queryCreated'] as const;

describe('history filters webhookId, since and until', () => {
  let owner: { userId: number; apiKey: string };
  let other: { userId: number; apiKey: string };
  let admin: { userId: number; apiKey: string };
  const hooks = { a: 0, b: 0, others: 0, global: 0 };
  const times: number[] = [];

  beforeAll(async () => {
    useLocalCloudEnv();
    [owner, other, admin] = await Promise.all([
      createKey('filters-owner'),
      createKey('filters-other'),
      createKey('filters-admin', true),
    ]);
    // Webhook ids no other test uses (the filters only look at the records' webhooksId).
    const base = 900_000_000 + (randomBytes(3).readUIntBE(0, 3) % 1_000_000) * 4;
    Object.assign(hooks, { a: base, b: base + 1, others: base + 2, global: base + 3 });
    const { writeHistoryRecord } = await import('../../../shared/webhooks/store/history');
    const write = (webhookId: number, createdBy: number, global: boolean, i: number) =>
      writeHistoryRecord({
        request: { text: `r${i}`, metadata: {}, webhookId, webhookName: 'w' },
        response: { body: '' },
        statusCode: i % 3 === 0 ? 500 : 200,
        durationMs: 1,
        notificationType: TYPES[i % 2] as string,
        webhooksActivityId: i,
        webhooksId: webhookId,
        url: 'http://127.0.0.1:9/filters',
        name: 'w',
        actionType: 'triggered',
        createdBy,
        deliveryId: `msg_${randomBytes(16).toString('hex')}_${webhookId}`,
        attempt: 1,
        global,
      });
    for (let i = 0; i < 48; i++) {
      times.push(Date.now());
      await Promise.all([
        write(i % 2 === 0 ? hooks.a : hooks.b, owner.userId, false, i),
        write(hooks.others, other.userId, false, i),
        write(hooks.global, admin.userId, true, i),
      ]);
      if (i % 8 === 7) await new Promise((r) => setTimeout(r, 30));
    }
    times.push(Date.now());
  });

  function reference(all: AnyRecord[], query: Query) {
    const since = query.since === undefined ? -Infinity : Date.parse(String(query.since));
    const until = query.until === undefined ? Infinity : Date.parse(String(query.until));
    const matching = all
      .filter((r) => query.webhookId === undefined || r.webhooksId === query.webhookId)
      .filter((r) => Date.parse(r.createdAt) >= since && Date.parse(r.createdAt) <= until)
      .filter((r) => query.notificationType === undefined || r.notificationType === query.notificationType)
      .filter((r) => {
        if (query.successOrFailure === undefined) return true;
        const ok = r.statusCode >= 200 && r.statusCode < 300;
        return query.successOrFailure === 'success' ? ok : !ok;
      })
      .sort((x, y) => (query.sortOrder === 'asc' ? x.id - y.id : y.id - x.id));
    const offset = Number(query.offset ?? 0);
    const pageSize = Number(query.pageSize ?? 20);
    return { count: matching.length, ids: matching.slice(offset, offset + pageSize).map((r) => r.id) };
  }

  it('agrees with the reference for every combination, for owners and admins', async () => {
    const iso = (ms: number) => new Date(ms).toISOString();
    const since = iso(times[10] as number);
    const until = iso(times[37] as number);
    const cases: [{ userId: number; apiKey: string }, string, Query][] = [];
    // The owner is new: every record they see is this test's, so the unfiltered listing is
    // checked too. An admin's global audience is shared with other tests: only webhookId there.
    for (const [who, extra, ids] of [
      [owner, '', [undefined, hooks.a, hooks.b]],
      [admin, '&includeGlobal=true', [hooks.global]],
    ] as const) {
      for (const webhookId of ids)
        for (const window of [{}, { since }, { until }, { since, until }])
          for (const filter of [{}, { notificationType: TYPES[1] }, { successOrFailure: 'failure' }])
            for (const page of [{}, { offset: 7, pageSize: 5, sortOrder: 'asc' }])
              cases.push([who, extra, { webhookId, ...window, ...filter, ...page }]);
    }
    const everything = new Map<string, AnyRecord[]>();
    for (const [who, extra, query] of cases) {
      const all = everything.get(who.apiKey + extra) ?? (await allHistory(who.apiKey, extra));
      everything.set(who.apiKey + extra, all);
      const page = await call('GET', `/webhooks/history?includeUser=true${qs(query)}${extra}`, {
        key: who.apiKey,
      });
      expect(page.status, page.text).toBe(200);
      const expected = reference(all, query);
      const label = JSON.stringify(query);
      expect(
        page.body.records.map((r: AnyRecord) => r.id),
        label,
      ).toEqual(expected.ids);
      // Unfiltered counts come from the stream-fed counters (their lag is history.test.ts's
      // business); a window or a webhook is counted from the index at once.
      if (query.webhookId !== undefined || query.since !== undefined || query.until !== undefined)
        expect(page.body.count, label).toBe(expected.count);
    }
  });

  it('never shows another user’s webhook records through webhookId', async () => {
    const page = await call('GET', `/webhooks/history?webhookId=${hooks.others}`, { key: owner.apiKey });
    expect(page.body).toEqual({ count: 0, records: [] });
    const global = await call('GET', `/webhooks/history?webhookId=${hooks.global}&includeGlobal=true`, {
      key: owner.apiKey,
    });
    expect(global.body).toEqual({ count: 0, records: [] });
  });

  it('refuses a malformed filter with a 400 naming it', async () => {
    for (const [query, field] of [
      ['webhookId=0', 'webhookId'],
      ['webhookId=abc', 'webhookId'],
      ['since=yesterday', 'since'],
      ['since=2026-01-02T00:00:00Z&until=2026-01-01T00:00:00Z', 'until'],
    ] as const) {
      const reply = await call('GET', `/webhooks/history?${query}`, { key: owner.apiKey });
      expect(reply.status, query).toBe(400);
      expect(reply.body.message).toContain(field);
    }
  });
});
