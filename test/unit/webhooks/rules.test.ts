import { describe, expect, it } from 'vitest';
import { selectedAudiences } from '../../../shared/webhooks/api/history';
import { rejectionReason } from '../../../shared/webhooks/api/webhooks';
import { WebhookInputSchema } from '../../../shared/webhooks/model';
import { alreadyHandled, earlierReceiveUnrecorded } from '../../../shared/webhooks/pipeline/delivery';
import { countedRecord, groupFrom } from '../../../shared/webhooks/pipeline/history-counts';
import { maxAttempts, nextStep } from '../../../shared/webhooks/pipeline/retry';
import { MAX_COUNTERS_PER_GROUP } from '../../../shared/webhooks/store/delivery-counts';
import {
  counterKeys,
  createdAtOf,
  dayOf,
  expiresAtFor,
  historyId,
  listingKeys,
  listingSelection,
  liveWindow,
  outcomeOf,
  plainJson,
  requestView,
  responseView,
} from '../../../shared/webhooks/store/history-keys';
import { COMPRESS_FROM_BYTES, packText, unpackText } from '../../../shared/webhooks/store/history-text';
import {
  notificationSubscriptionKeys,
  sameAudienceKey,
  webhookSubscriptionKeys,
} from '../../../shared/webhooks/store/subscriptions';

const admin = { userId: 1, name: 'admin', permissions: ['APPLICATION_ADMIN' as const] };
const user = { userId: 2, name: 'user', permissions: [] };

describe('retry schedule', () => {
  const schedule = [5, 300, 1800];
  const failed = { delivered: false, statusCode: 500 };

  it('retries by the schedule and is exhausted after it', () => {
    expect(nextStep(1, failed, schedule)).toEqual({ kind: 'retry', delaySeconds: 5 });
    expect(nextStep(3, failed, schedule)).toEqual({ kind: 'retry', delaySeconds: 1800 });
    expect(nextStep(4, failed, schedule)).toEqual({ kind: 'exhausted' });
    expect(maxAttempts(schedule)).toBe(4);
  });

  it('honours Retry-After (clamped to the SQS maximum) and stops on 410 and success', () => {
    expect(nextStep(1, { delivered: false, statusCode: 429, retryAfterSeconds: 42 }, schedule)).toEqual({
      kind: 'retry',
      delaySeconds: 42,
    });
    expect(nextStep(1, { delivered: false, statusCode: 503, retryAfterSeconds: 10 ** 6 }, schedule)).toEqual({
      kind: 'retry',
      delaySeconds: 43_200,
    });
    expect(nextStep(1, { delivered: false, statusCode: 410 }, schedule)).toEqual({ kind: 'gone' });
    expect(nextStep(1, { delivered: true, statusCode: 200 }, schedule)).toEqual({ kind: 'delivered' });
  });
});

describe('subscription keys', () => {
  it('stores global webhooks under the global key and personal ones under their owner', () => {
    expect(
      webhookSubscriptionKeys({ global: true, createdBy: 1, notificationType: ['a', 'a', 'b'] }),
    ).toEqual(['a#global', 'b#global']);
    expect(webhookSubscriptionKeys({ global: false, createdBy: 9, notificationType: ['a'] })).toEqual([
      'a#user#9',
    ]);
  });

  it('queries the type and the wildcard for global and each pertinent user', () => {
    expect(notificationSubscriptionKeys('modelCreated', [3, 4])).toEqual([
      'modelCreated#global',
      'modelCreated#user#3',
      'modelCreated#user#4',
      'ALL_NOTIFICATIONS#global',
      'ALL_NOTIFICATIONS#user#3',
      'ALL_NOTIFICATIONS#user#4',
    ]);
  });
});

describe('webhook permissions', () => {
  const input = {
    url: 'https://example.com/hook',
    name: 'n',
    global: false,
    notificationType: ['modelAccessRequested' as const],
    actionType: 'triggered' as const,
  };

  it('lets users subscribe personal webhooks to activity notifications', () => {
    expect(rejectionReason(user, input)).toBeUndefined();
  });

  it('keeps global webhooks, system events and the wildcard for admins', () => {
    expect(rejectionReason(user, { ...input, global: true })).toMatch(/global/);
    expect(rejectionReason(user, { ...input, notificationType: ['userCreated'] })).toMatch(/userCreated/);
    expect(rejectionReason(user, { ...input, notificationType: ['ALL_NOTIFICATIONS'] })).toMatch(
      /ALL_NOTIFICATIONS/,
    );
    expect(
      rejectionReason(admin, { ...input, global: true, notificationType: ['ALL_NOTIFICATIONS'] }),
    ).toBeUndefined();
  });

  it('rejects credentials in the URL and malformed whsec_ secrets', () => {
    expect(rejectionReason(user, { ...input, url: 'https://a:b@example.com/' })).toMatch(/credentials/);
    expect(rejectionReason(user, { ...input, secret: 'whsec_!!' })).toMatch(/secret/);
    expect(rejectionReason(user, { ...input, secret: 'x' })).toMatch(/at least 16 characters/);
  });

  it('rejects empty userinfo too, however the URL writes it (issue 24, finding 9)', () => {
    for (const url of [
      'https://:@example.com/',
      'https://@example.com/',
      'https://u@example.com/',
      ' https://:@example.com/',
      'https:/\t/:@example.com/',
      'https:\\\\:@example.com/',
    ]) {
      expect(rejectionReason(user, { ...input, url }), url).toBe('url must not contain credentials');
    }
    for (const url of ['https://example.com/a@b', 'https://example.com/?to=a@b', 'https://example.com/#@']) {
      expect(rejectionReason(user, { ...input, url }), url).toBeUndefined();
    }
  });

  it('refuses control and bidirectional characters in webhook names (issue 24, finding 9)', () => {
    const entry = {
      url: 'https://example.com/h',
      global: false,
      notificationType: ['addedToProject'],
      actionType: 'receive',
    };
    for (const name of [
      'a\u0000b',
      'a\rb',
      'line\nbreak',
      'tab\there',
      'del\u007f',
      'c1\u0085',
      'rtl\u202Eexe.txt',
      'iso\u2066late',
      'mark\u200F',
    ]) {
      const parsed = WebhookInputSchema.safeParse({ ...entry, name });
      expect(parsed.success, JSON.stringify(name)).toBe(false);
      expect(parsed.error?.issues[0]?.path).toEqual(['name']);
      expect(parsed.error?.issues[0]?.message).toMatch(/control characters/);
    }
    expect(WebhookInputSchema.safeParse({ ...entry, name: 'Ünïcödé 名前 ok — fine' }).success).toBe(true);
  });

  it('refuses IPv4-compatible IPv6 and other non-global literal hosts at create time', () => {
    for (const url of [
      'http://[::127.0.0.1]:8080/',
      'http://[::2]/',
      'http://[::a9fe:a9fe]/',
      'http://[2001:db8::1]/',
    ]) {
      expect(rejectionReason(user, { ...input, url })).toBe('url points to a non-public address');
    }
  });
});

describe('history ids, partitions and retention window', () => {
  it('makes time-ordered integer ids below MAX_SAFE_INTEGER, createdAt taken from the id', () => {
    const now = Date.UTC(2200, 0, 1);
    const id = historyId(now, 999);
    expect(Number.isSafeInteger(id)).toBe(true);
    expect(historyId(now + 1, 0)).toBeGreaterThan(id);
    expect(createdAtOf(historyId(Date.UTC(2026, 2, 10, 1, 2, 3, 456), 17))).toBe('2026-03-10T01:02:03.456Z');
  });

  it('expires records at a day boundary and windows the live days', () => {
    const t = Date.UTC(2026, 2, 10, 15, 30);
    expect(expiresAtFor(t, 30)).toBe(Date.UTC(2026, 3, 10) / 1000);
    const window = liveWindow(t, 30);
    expect(window.days).toHaveLength(31);
    expect(window.days[0]).toBe('2026-02-08');
    expect(window.days.at(-1)).toBe(dayOf(t));
    expect(window.minId).toBe(Date.UTC(2026, 1, 8) * 1000);
  });

  it('lists a record under audience × outcome × shard, and × type; counts it per day without the shard', () => {
    expect(listingKeys('user#4', 'modelCreated', outcomeOf(503), 5)).toEqual({
      la: 'user#4|f|5',
      lt: 'user#4|modelCreated|f|5',
    });
    expect(outcomeOf(204)).toBe('s');
    expect(counterKeys('global', 'modelCreated', 's', '2026-03-10')).toEqual([
      'global|s|2026-03-10',
      'global|modelCreated|s|2026-03-10',
    ]);
  });

  it('selects every shard of every outcome of every audience the query names', () => {
    const all = listingSelection(['user#4', 'global'], {}, 8, ['d1', 'd2']);
    expect(all.kind).toBe('audience');
    expect(all.partitions).toHaveLength(2 * 2 * 8);
    expect(all.counters).toEqual([
      'user#4|s|d1',
      'user#4|s|d2',
      'user#4|f|d1',
      'user#4|f|d2',
      'global|s|d1',
      'global|s|d2',
      'global|f|d1',
      'global|f|d2',
    ]);
    const typed = listingSelection(
      ['global'],
      { notificationType: 'userCreated', successOrFailure: 'failure' },
      1,
      ['d1'],
    );
    expect(typed).toEqual({
      kind: 'type',
      partitions: ['global|userCreated|f|0'],
      counters: ['global|userCreated|f|d1'],
    });
  });

  it('drops a message whose attempt is recorded or whose delivery ended, and only those', () => {
    expect(alreadyHandled(1, [])).toBeUndefined();
    expect(alreadyHandled(2, [{ attempt: 1, statusCode: 500 }])).toBeUndefined();
    expect(alreadyHandled(1, [{ attempt: 1, statusCode: 500 }])).toMatch(/already recorded/);
    expect(alreadyHandled(1, [{ attempt: 3, statusCode: 500 }])).toMatch(/already recorded/);
    expect(alreadyHandled(3, [{ attempt: 2, statusCode: 204 }])).toMatch(/ended/);
    expect(alreadyHandled(3, [{ attempt: 2, statusCode: 410 }])).toMatch(/ended/);
  });

  it('tells a redelivered attempt whose earlier receive left no record (possibly delivered before)', () => {
    // A first receive, and a scheduled retry whose previous attempt is recorded: nothing to say.
    expect(earlierReceiveUnrecorded(1, false, [])).toBe(false);
    expect(earlierReceiveUnrecorded(2, true, [{ attempt: 1, statusCode: 500 }])).toBe(false);
    // Received before, and the attempt that receive made has no record: it may have POSTed.
    expect(earlierReceiveUnrecorded(2, true, [])).toBe(true);
    expect(earlierReceiveUnrecorded(3, true, [{ attempt: 1, statusCode: 500 }])).toBe(true);
    // A throttled delivery sent again starts its receive count over: its first receive is not one.
    expect(earlierReceiveUnrecorded(4, false, [{ attempt: 2, statusCode: 500 }])).toBe(false);
  });

  it('shows global records to admins only', () => {
    expect(selectedAudiences(admin, { includeUser: true, includeGlobal: true })).toEqual([
      'user#1',
      'global',
    ]);
    expect(selectedAudiences(user, { includeUser: true, includeGlobal: true })).toEqual(['user#2']);
    expect(selectedAudiences(user, { includeUser: false, includeGlobal: true })).toEqual([]);
  });
});

describe('stored answers and their view', () => {
  const nested = (depth: number): string => (depth === 0 ? '1' : `{"a":${nested(depth - 1)}}`);

  it('parses a plain JSON answer and shows anything else as the text that came', () => {
    expect(responseView({ body: '{"ok":true}', json: true })).toEqual({ body: { ok: true } });
    expect(responseView({ body: '{"ok":true}' })).toEqual({ body: '{"ok":true}' });
    expect(responseView({ body: '{"ok":', json: true })).toEqual({ body: '{"ok":' });
    expect(responseView({ body: '', json: true })).toEqual({ body: '' });
    expect(responseView({ body: 'x'.repeat(10), truncated: true })).toEqual({
      body: 'x'.repeat(10),
      truncated: true,
    });
    expect(responseView({ body: { code: 'ECONNREFUSED', connect: true } })).toEqual({
      body: { code: 'ECONNREFUSED', connect: true },
    });
  });

  it('keeps integers past 2^53 and nesting past 32 levels as text; odd keys parse', () => {
    const big = '{"id":18446744073709551615}';
    expect(plainJson(big)).toBeUndefined();
    expect(responseView({ body: big, json: true })).toEqual({ body: big });
    expect(plainJson(nested(32))).toBeDefined();
    expect(plainJson(nested(33))).toBeUndefined();
    expect(plainJson('{"":1}')).toEqual({ '': 1 });
    const proto = plainJson('{"__proto__":{"polluted":true}}') as Record<string, unknown>;
    expect(Object.keys(proto)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(plainJson('1.5e300')).toBe(1.5e300);
  });

  it('reads the request from its JSON text and from older records that stored the document', () => {
    const request = { text: 't', metadata: { '': 1 }, webhookId: 3, webhookName: 'w' };
    expect(requestView(JSON.stringify(request))).toEqual(request);
    expect(requestView(request)).toEqual(request);
  });

  it('stores long text compressed and reads every stored form back as it came', () => {
    const request = {
      text: 'Dana Whitfield requested read access to the data source sales_emea_quarterly. '.repeat(6),
      metadata: { notificationType: 'accessRequested', dataSourceId: 42, 'é✓': 'ünïcode 😀' },
      webhookId: 3,
      webhookName: 'w',
    };
    const text = JSON.stringify(request);
    const packed = packText(text);
    expect(packed).toBeInstanceOf(Uint8Array);
    expect((packed as Uint8Array).length).toBeLessThan(Buffer.byteLength(text) / 2);
    expect(unpackText(packed)).toBe(text);
    expect(requestView(packed)).toEqual(request);
    const answer = `{"received":true,"note":"${'all good '.repeat(40)}"}`;
    expect(responseView({ body: packText(answer), json: true })).toEqual({ body: JSON.parse(answer) });
    expect(responseView({ body: packText(answer), truncated: true })).toEqual({
      body: answer,
      truncated: true,
    });
  });

  it('keeps short text as text, and compresses from the threshold on', () => {
    const short = 'x'.repeat(COMPRESS_FROM_BYTES - 1);
    expect(packText(short)).toBe(short);
    expect(packText(`${short}x`)).toBeInstanceOf(Uint8Array);
  });
});

describe('history counting from the stream', () => {
  const insert = (n: number, la: string, lt: string) => ({
    eventID: `e${n}`,
    eventName: 'INSERT' as const,
    dynamodb: {
      SequenceNumber: String(1000 + n),
      NewImage: {
        id: { N: String(historyId(Date.UTC(2026, 2, 10, 12), n)) },
        la: { S: la },
        lt: { S: lt },
        expiresAt: { N: '1775000000' },
      },
    },
  });

  it('counts inserts only, per day and without the shard', () => {
    expect(countedRecord(insert(1, 'global|s|3', 'global|userCreated|s|3'))?.adds).toEqual([
      { key: 'global|s|2026-03-10', attr: 'n' },
      { key: 'global|userCreated|s|2026-03-10', attr: 'n' },
    ]);
    expect(
      countedRecord({ ...insert(1, 'global|s|3', 'global|t|s|3'), eventName: 'REMOVE' }),
    ).toBeUndefined();
    expect(
      countedRecord({ ...insert(1, 'x', 'y'), dynamodb: { SequenceNumber: '1', NewImage: {} } }),
    ).toBeUndefined();
  });

  it('groups as many records as fit one transaction, each counter once with its sum', () => {
    const same = Array.from({ length: 300 }, (_, n) =>
      countedRecord(insert(n, 'global|s|1', 'global|t|s|1')),
    );
    const { group, end } = groupFrom(same as never, 0);
    expect(end).toBe(300);
    expect([...group.deltas.values()].map((d) => d.adds.get('n'))).toEqual([300, 300]);
    expect(group).toMatchObject({ marker: 'e0', through: '1299' });
    const distinct = Array.from({ length: 100 }, (_, n) =>
      countedRecord(insert(n, `user#${n}|s|0`, `user#${n}|t|s|0`)),
    );
    const first = groupFrom(distinct as never, 0);
    expect(first.group.deltas.size).toBeLessThanOrEqual(MAX_COUNTERS_PER_GROUP);
    expect(first.end).toBe(49);
    expect(groupFrom(distinct as never, first.end).group.marker).toBe('e49');
  });
});

describe('fan-out keys', () => {
  it('finds the type key of the audience of an ALL_NOTIFICATIONS key', () => {
    const [typed, user, all, allUser] = notificationSubscriptionKeys('userCreated', [4]);
    expect(sameAudienceKey(all as string, 'userCreated')).toBe(typed);
    expect(sameAudienceKey(allUser as string, 'userCreated')).toBe(user);
  });
});
