/**
 * Payload filters through the local cloud (issue 26): stored on create and PATCH (`null` removes
 * one) and shown by GET; refused at the edge with a 400 naming the line and column or the field;
 * evaluated at fan-out (fan-out's own log line names the webhooks each notification went to, so
 * what was filtered out is read, not waited for); a failing or too costly filter is no delivery,
 * counted, and leaves the other webhooks of the batch alone; a queued delivery keeps the decision
 * fan-out made.
 */
import { randomBytes } from 'node:crypto';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createKey, eventually, useLocalCloudEnv } from '../../support/api';
import { createHooks, fannedOutTo, historyFor, logLines, publish, untilCount } from './helpers';
import { type Receiver, startReceiver } from './receiver';

const X = 'modelAccessRequested';
const Y = 'modelAccessApproved';

describe('webhook payload filters', () => {
  let receiver: Receiver;
  let owner: { userId: number; apiKey: string };

  beforeAll(async () => {
    receiver = await startReceiver();
    owner = await createKey('filter-owner');
  });
  afterAll(async () => {
    await receiver.close();
  });

  const hook = (name: string, types: string[], filter?: string) => ({
    name,
    url: receiver.url(`/${name}`),
    global: false,
    notificationType: types,
    actionType: 'triggered',
    ...(filter !== undefined ? { filter } : {}),
  });

  it('stores the filter on create, changes it with PATCH, removes it with null; GET shows it', async () => {
    const filter = 'metadata.notificationType == "modelAccessRequested" && metadata.dataSourceId in [42, 43]';
    const created = await call('POST', '/webhooks', {
      key: owner.apiKey,
      body: { webhooks: [hook('stored', [X], filter)] },
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body.createdWebhooks[0].filter).toBe(filter);
    const id = created.body.createdWebhooks[0].id as number;
    const read = await call('GET', `/webhooks/${id}`, { key: owner.apiKey });
    expect(read.body).toMatchObject({ filter, health: { filterErrors: 0 } });

    const changed = await call('PATCH', `/webhooks/${id}`, {
      key: owner.apiKey,
      body: { filter: 'text.contains("Sales")' },
    });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body.filter).toBe('text.contains("Sales")');
    // A PATCH without `filter` keeps it.
    const renamed = await call('PATCH', `/webhooks/${id}`, { key: owner.apiKey, body: { name: 'stored 2' } });
    expect(renamed.body.filter).toBe('text.contains("Sales")');

    const removed = await call('PATCH', `/webhooks/${id}`, { key: owner.apiKey, body: { filter: null } });
    expect(removed.status, removed.text).toBe(200);
    expect(removed.body).not.toHaveProperty('filter');
    expect((await call('GET', `/webhooks/${id}`, { key: owner.apiKey })).body).not.toHaveProperty('filter');
  });

  it('refuses a filter that can never work with a 400 naming the line and column or the field', async () => {
    const [id] = await createHooks(owner.apiKey, [hook('refusals', ['webhookFailing'])]);
    const stored = (await call('GET', `/webhooks/${id}`, { key: owner.apiKey })).body;
    const cases: [string, RegExp][] = [
      ['metadata.targetUser ==', /^body\.filter: does not parse: .* at line 1, column \d+$/],
      ['webhookId == 1 &&\n  text > 1', /^body\.filter: does not type-check: .* at line 2, column 3$/],
      ['webhookId == 1 &&\n  text.startsWith(1)', /does not type-check: .* at line 2, column 3$/],
      ['webhookId == 1 && text.size()', /does not type-check: .*bool operands.* at line 1, column 1$/],
      [`text == "${'x'.repeat(2100)}"`, /^body\.filter: 2110 bytes; at most 2048 are allowed$/],
      ['secret == "x"', /^body\.filter: the payload has no field secret .* at line 1, column 1$/],
      ['text.length > 1', /the payload never has text\.length: text is a string at line 1, column 1$/],
      // The subscribed type (the service's own webhookFailing) carries no dataSourceId.
      [
        'metadata.dataSourceId == 42',
        /^body\.filter: the payload never has metadata\.dataSourceId: the subscribed types \(webhookFailing\)/,
      ],
      // Regular expressions and macros are outside the subset: no regex bomb is ever compiled.
      ['text.matches("(a+)+$")', /matches\(\) is not allowed in filters .* at line 1, column 1$/],
      ['metadata.url.exists(c, c == "x")', /exists\(\) is not allowed/],
      [`webhookId in [${'['.repeat(40)}1${']'.repeat(40)}]`, /does not parse: .*maxDepth/],
    ];
    for (const [filter, message] of cases) {
      const reply = await call('PATCH', `/webhooks/${id}`, { key: owner.apiKey, body: { filter } });
      expect(reply.status, `${filter} → ${reply.text}`).toBe(400);
      expect(reply.body).toMatchObject({ statusCode: 400, error: 'Bad Request' });
      expect(reply.body.message, filter).toMatch(message);
    }
    expect((await call('GET', `/webhooks/${id}`, { key: owner.apiKey })).body).toEqual(stored);

    // On create: the whole request is refused, naming the entry; nothing is created.
    const before = (await call('GET', '/webhooks', { key: owner.apiKey })).body.length;
    const refused = await call('POST', '/webhooks', {
      key: owner.apiKey,
      body: { webhooks: [hook('fine', [X]), hook('typo', [X], 'metadata.dataSourceId = 42')] },
    });
    expect(refused.status, refused.text).toBe(400);
    expect(refused.body.message).toMatch(
      /^body\.webhooks\[1\]\.filter: does not parse: .* at line 1, column \d+$/,
    );
    expect((await call('GET', '/webhooks', { key: owner.apiKey })).body).toHaveLength(before);

    // A stored filter the new types make impossible: the type change is refused, naming the field.
    const withFilter = await call('PATCH', `/webhooks/${id}`, {
      key: owner.apiKey,
      body: { notificationType: [X], filter: 'metadata.dataSourceId == 42' },
    });
    expect(withFilter.status, withFilter.text).toBe(200);
    const narrowed = await call('PATCH', `/webhooks/${id}`, {
      key: owner.apiKey,
      body: { notificationType: ['webhookFailing'] },
    });
    expect(narrowed.status, narrowed.text).toBe(400);
    expect(narrowed.body.message).toMatch(/^body\.notificationType: .*never has metadata\.dataSourceId/);
  });

  it('delivers only what each filter lets through, as a reference predicate says', async () => {
    const filters: [
      string,
      (n: { type: string; text: string; metadata: Record<string, unknown> }) => boolean,
    ][] = [
      ['metadata.dataSourceId in [42, 43]', (n) => [42, 43].includes(n.metadata.dataSourceId as number)],
      [
        'metadata.notificationType == "modelAccessApproved" || text.startsWith("urgent")',
        (n) => n.type === Y || n.text.startsWith('urgent'),
      ],
      [
        'has(metadata.region) && metadata.region == "eu" && webhookName == "ref-2"',
        (n) => n.metadata.region === 'eu',
      ],
    ];
    const ids = await createHooks(owner.apiKey, [
      ...filters.map(([filter], i) => hook(`ref-${i}`, [X, Y], filter)),
      hook('ref-all', [X, Y]),
    ]);
    const notifications = Array.from({ length: 24 }, (_, i) => ({
      type: i % 3 === 0 ? Y : X,
      text: i % 4 === 0 ? `urgent ${i}` : `routine ${i}`,
      metadata: {
        dataSourceId: 40 + (i % 5),
        ...(i % 2 === 0 ? { region: i % 6 === 0 ? 'eu' : 'us' } : {}),
      },
    }));
    const published = await Promise.all(
      notifications.map((n) =>
        publish({ notificationType: n.type, text: n.text, metadata: n.metadata, recipients: [owner.userId] }),
      ),
    );
    const reached = await Promise.all(published.map((p) => fannedOutTo(p.messageId)));
    notifications.forEach((n, i) => {
      const expected = [...filters.map(([, reference], f) => (reference(n) ? ids[f] : undefined)), ids[3]];
      expect(reached[i]?.filter((id) => ids.includes(id)).sort(), JSON.stringify(n)).toEqual(
        expected.filter((id) => id !== undefined).sort(),
      );
    });
    // The reference lets some through and holds some back for each filter.
    for (const [, reference] of filters) {
      expect(notifications.some(reference)).toBe(true);
      expect(notifications.every(reference)).toBe(false);
    }
  });

  it('counts a failing or too costly filter as an error and no delivery; the other webhooks of the batch are delivered', async () => {
    // An owner of its own: the batch holds exactly these four webhooks.
    const batchOwner = await createKey('filter-errors');
    const hookOf = (name: string, filter?: string) => hook(name, [X], filter);
    const [missing, bomb, plain, passing] = await createHooks(batchOwner.apiKey, [
      // A metadata key the notification lacks: a run-time error (no has() guard).
      hookOf('err-missing', 'metadata.dataSourceId == 42'),
      hookOf('err-bomb', 'webhookId > 0'),
      hookOf('err-plain'),
      hookOf('err-passing', 'text.contains("bomb")'),
    ]);
    // A regular-expression bomb stored where the API would never let it in (as if written before
    // the rules): fan-out's compilation refuses it, so it costs no evaluation at all.
    useLocalCloudEnv();
    const { documentClient } = await import('../../../shared/store/clients');
    const { tableName } = await import('../../../shared/store/tables');
    await documentClient.send(
      new UpdateCommand({
        TableName: tableName('webhookSubscriptions'),
        Key: { subscriptionKey: `${X}#user#${batchOwner.userId}`, webhookId: bomb },
        UpdateExpression: 'SET #f = :bomb, updatedAt = :v',
        ExpressionAttributeNames: { '#f': 'filter' },
        ExpressionAttributeValues: { ':bomb': `text.matches("(a+)+$")`, ':v': 'bomb-version' },
      }),
    );

    const sent = await publish({
      notificationType: X,
      text: `bomb ${'a'.repeat(5000)}!`,
      metadata: { region: 'eu' },
      recipients: [batchOwner.userId],
    });
    const reached = await fannedOutTo(sent.messageId);
    expect(reached).toEqual(expect.arrayContaining([plain, passing]));
    expect(reached).not.toContain(missing);
    expect(reached).not.toContain(bomb);
    await untilCount(() => receiver.byPath('/err-plain').length, 1, 'the unfiltered delivery');
    await untilCount(() => receiver.byPath('/err-passing').length, 1, 'the filtered delivery');

    // Counted: on each webhook (last 24 h), in the metric, and logged with the error.
    for (const id of [missing, bomb]) {
      const view = await call('GET', `/webhooks/${id}`, { key: batchOwner.apiKey });
      expect(view.body.health.filterErrors, String(id)).toBe(1);
    }
    expect(
      (await call('GET', `/webhooks/${plain}`, { key: batchOwner.apiKey })).body.health.filterErrors,
    ).toBe(0);
    const lines = await logLines();
    const warning = lines.find(
      (l) =>
        l.message === 'webhook filters failed: no delivery' &&
        JSON.stringify(l.failures).includes(`"webhookId":${missing}`),
    );
    // The kind of each failure, never its message (which can quote the payload).
    expect(warning?.failures).toEqual(
      expect.arrayContaining([
        { webhookId: missing, kind: 'no_such_key' },
        { webhookId: bomb, kind: 'does_not_compile' },
      ]),
    );
    expect(JSON.stringify(warning)).not.toContain('bomb a');
    // Locally the metric is an EMF line in the cloud's output, as CloudWatch Logs would read it.
    // An invocation's notifications share a document: a value (a sample) per notification.
    const twoFailed = (l: Record<string, unknown>) => '_aws' in l && [l.FilterErrors].flat().includes(2);
    const emf = await eventually(logLines, (all) => all.some(twoFailed));
    expect(emf.find(twoFailed)).toMatchObject({ service: 'causeway', stage: 'local' });
  });

  it('logs the kind of a filter failure, never the payload it read (issue 34, item 16)', async () => {
    const logOwner = await createKey('filter-log');
    // A key read from the text: the error's message is the notification's text.
    const [id] = await createHooks(logOwner.apiKey, [hook('err-dynamic-key', [X], 'metadata[text] == 1')]);
    const canary = `canary ${randomBytes(8).toString('hex')} ${'x'.repeat(200)}`;
    const sent = await publish({ notificationType: X, text: canary, recipients: [logOwner.userId] });
    expect(await fannedOutTo(sent.messageId)).not.toContain(id);
    const lines = await logLines();
    const warning = lines.find(
      (l) =>
        l.message === 'webhook filters failed: no delivery' &&
        JSON.stringify(l.failures).includes(`"webhookId":${id}`),
    );
    expect(warning?.failures).toEqual([{ webhookId: id, kind: 'no_such_key' }]);
    expect(lines.filter((l) => JSON.stringify(l).includes(canary.slice(0, 24)))).toEqual([]);
  });

  it('keeps the decision made at fan-out for a queued delivery: a PATCH does not filter it again', async () => {
    // The first attempt is held until the PATCH is done and then fails, so the retry is queued
    // while the filter changes to one the notification no longer passes.
    let release: () => void = () => {};
    const patched = new Promise<void>((r) => {
      release = r;
    });
    let first = true;
    receiver.on('/queued-filter', (_req, _body, res) => {
      if (!first) return undefined;
      first = false;
      void patched.then(() => res.writeHead(500).end());
      return 500;
    });
    const [id] = await createHooks(owner.apiKey, [hook('queued-filter', [X], 'text.startsWith("keep")')]);
    await publish({ notificationType: X, text: 'keep me', recipients: [owner.userId] });
    await untilCount(() => receiver.byPath('/queued-filter').length, 1, 'the first attempt');
    const reply = await call('PATCH', `/webhooks/${id}`, {
      key: owner.apiKey,
      body: { filter: 'text.startsWith("other")' },
    });
    expect(reply.status, reply.text).toBe(200);
    release();
    await untilCount(() => receiver.byPath('/queued-filter').length, 2, 'the retry after the PATCH');
    const [attempt, retry] = receiver.byPath('/queued-filter');
    expect(retry?.headers['webhook-id']).toBe(attempt?.headers['webhook-id']);
    expect(JSON.parse(retry?.body ?? '{}')).toMatchObject({ text: 'keep me' });
    // A new notification is decided by the new filter.
    const after = await publish({ notificationType: X, text: 'keep me too', recipients: [owner.userId] });
    expect(await fannedOutTo(after.messageId)).not.toContain(id);
    const view = await eventually(
      () => call('GET', `/webhooks/${id}`, { key: owner.apiKey }),
      (v) => v.status === 200,
    );
    expect(view.body.health.filterErrors).toBe(0);
  });

  it('previews what fan-out then delivers: the same counts, the same notifications, the same errors', async () => {
    const viewer = await createKey('filter-preview');
    const url = (name: string) => receiver.url(`/${name}`);
    const [seen] = await createHooks(viewer.apiKey, [
      {
        name: 'preview-all',
        url: url('preview-all'),
        global: false,
        notificationType: [X, Y],
        actionType: 'triggered',
      },
    ]);
    const batch = (round: string) =>
      Array.from({ length: 30 }, (_, i) => ({
        notificationType: i % 3 === 0 ? Y : X,
        text: `n${i} ${i % 4 === 0 ? 'urgent' : 'routine'} ${round}`,
        metadata: i % 5 === 0 ? { region: 'eu' } : { dataSourceId: 40 + (i % 6), region: 'us' },
        recipients: [viewer.userId],
      }));
    await Promise.all(batch('first').map((n) => publish(n)));
    const history = await historyFor(viewer.apiKey, seen as number, 30);
    const indexOf = new Map(
      history.map((r) => [r.webhooksActivityId as number, Number(/^n(\d+)/.exec(r.request.text)?.[1])]),
    );

    // Without a has() guard: the notifications without dataSourceId are errors.
    const filter = 'metadata.dataSourceId >= 43 || text.contains("urgent")';
    const preview = await call('POST', '/webhooks/filters/preview', { key: viewer.apiKey, body: { filter } });
    expect(preview.status, preview.text).toBe(200);
    expect(preview.body).toMatchObject({ evaluated: 30 });
    expect(preview.body.matched + preview.body.notMatched).toBe(30);
    expect(preview.body.errors).toBe(preview.body.failures.length);
    expect(preview.body.failures[0]?.error).toMatch(/No such key: dataSourceId/);
    const previewed = (ids: number[]) => ids.map((id) => indexOf.get(id)).sort((a, b) => (a ?? 0) - (b ?? 0));

    const [filtered] = await createHooks(viewer.apiKey, [
      {
        name: 'preview-filtered',
        url: url('preview-filtered'),
        global: false,
        notificationType: [X, Y],
        actionType: 'triggered',
        filter,
      },
    ]);
    const second = await Promise.all(batch('second').map((n) => publish(n)));
    const reached = await Promise.all(second.map((p) => fannedOutTo(p.messageId)));
    const delivered = reached.flatMap((ids, i) => (ids.includes(filtered as number) ? [i] : []));
    expect(delivered).toEqual(previewed(preview.body.matching));
    expect(delivered.length).toBe(preview.body.matched);
    const health = (await call('GET', `/webhooks/${filtered}`, { key: viewer.apiKey })).body.health;
    expect(health.filterErrors).toBe(preview.body.errors);
    expect(preview.body.errors).toBeGreaterThan(0);
    expect(preview.body.matched).toBeGreaterThan(0);
    expect(preview.body.notMatched).toBeGreaterThan(preview.body.errors);

    // One type only, and a smaller window.
    const typed = await call('POST', '/webhooks/filters/preview', {
      key: viewer.apiKey,
      body: { filter: 'true', notificationType: Y, limit: 5 },
    });
    expect(typed.status, typed.text).toBe(200);
    expect(typed.body).toMatchObject({ evaluated: 5, matched: 5, notMatched: 0, errors: 0 });
    // The newest first: the second round's notifications of type Y.
    expect(typed.body.matching).toHaveLength(5);

    // The same refusals as a webhook's filter, and the limit's bounds.
    const bad: [unknown, RegExp][] = [
      [{ filter: 'text ==' }, /^body\.filter: does not parse: .* at line 1, column \d+$/],
      [
        { filter: 'metadata.dataSourceId == 1', notificationType: 'webhookFailing' },
        /never has metadata\.dataSourceId/,
      ],
      [{ filter: 'true', limit: 1001 }, /limit/],
      [{ filter: 'true', limit: 0 }, /limit/],
      [{}, /filter/],
    ];
    for (const [body, message] of bad) {
      const reply = await call('POST', '/webhooks/filters/preview', { key: viewer.apiKey, body });
      expect(reply.status, `${JSON.stringify(body)} → ${reply.text}`).toBe(400);
      expect(reply.body.message).toMatch(message);
    }
  });
});
