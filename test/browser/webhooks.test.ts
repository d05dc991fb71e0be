/**
 * Operating webhooks from the console, in real Chromium against the tier's local cloud: each
 * action end to end through the detail page (edit, pause/resume, rotate, test send, recover),
 * the health figures against the webhook's own history, the list, the event catalog, the
 * History page's outcome column and chart, and what a non-admin is shown and refused. Deliveries
 * go to a loopback receiver this file runs; every check that something did not happen is paired
 * with a control webhook that shows the notification did go out.
 *
 * Over 400 lines: one file for the webhook side of the console (its flows share this file's
 * browser, receiver and helpers).
 */
import type { Browser, Page } from 'playwright-core';
import { Webhook as Verifier } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseUrl, call, createKey, untilDone, useLocalCloudEnv } from '../support/api';
import { closePages, launchBrowser, signedIn as signedInWith } from '../support/browser';
import { type LoopbackServer, type ReceivedRequest, startLoopback } from '../support/loopback';

let browser: Browser;
let receiver: LoopbackServer;
const received: ReceivedRequest[] = [];
/** Status the receiver answers per path (200 when unset), and a delay per request body marker. */
const statusOf = new Map<string, number>();

beforeAll(async () => {
  browser = await launchBrowser();
  receiver = await startLoopback(async (req) => {
    received.push(req);
    const delay = /"text":"slow (\d+)/.exec(req.body)?.[1];
    if (delay) await new Promise((r) => setTimeout(r, Number(delay)));
    return { status: statusOf.get(req.url.pathname) ?? 200, body: 'ok' };
  });
});

afterAll(async () => {
  await closePages(browser);
  await receiver?.close();
});

let paths = 0;
/** A receiver path of its own for one webhook. */
const newPath = (label: string) => `/${label}-${++paths}-${Date.now()}`;
const at = (path: string) => received.filter((r) => r.url.pathname === path);

const signedIn = (key: string): Promise<Page> => signedInWith(browser, key);

async function createHook(
  key: string,
  path: string,
  types: string[],
  extra: Record<string, unknown> = {},
): Promise<number> {
  const created = await call('POST', '/webhooks', {
    key,
    body: {
      webhooks: [
        {
          name: path.slice(1),
          url: `${receiver.origin}${path}`,
          global: false,
          actionType: 'receive',
          notificationType: types,
          ...extra,
        },
      ],
    },
  });
  expect(created.status, created.text).toBe(201);
  return created.body.createdWebhooks[0].id as number;
}

async function publish(notificationType: string, text: string, recipients: number[]) {
  useLocalCloudEnv();
  const { publishNotification } = await import('../../shared/notifications/publisher');
  await publishNotification({ notificationType, text, recipients } as Parameters<
    typeof publishNotification
  >[0]);
}

// biome-ignore lint/suspicious/noExplicitAny: records are asserted field by field
type AnyRecord = Record<string, any>;

async function historyOf(key: string, webhookId: number): Promise<AnyRecord[]> {
  const out: AnyRecord[] = [];
  for (let offset = 0; ; offset += 100) {
    const page = await call('GET', `/webhooks/history?webhookId=${webhookId}&pageSize=100&offset=${offset}`, {
      key,
    });
    out.push(...page.body.records);
    if (page.body.records.length < 100) return out;
  }
}

const openDetail = async (page: Page, id: number) => {
  await page.goto(`${baseUrl()}/console/#/webhooks/${id}`);
  await page.getByRole('heading', { name: 'Health' }).waitFor();
};

const toast = (page: Page) => page.locator('.toasts');

/** Polls what the page shows until it matches; the bound only guards against a hang. */
const poll = <T>(probe: () => Promise<T>, options: { timeout?: number } = {}) =>
  expect.poll(probe, { timeout: 60_000, ...options });

describe('operating a webhook from the console', () => {
  it('the list: a loading state, a success message on create, status and health per webhook', async () => {
    const user = await createKey('wh-list');
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    // Hold the list's answer so the loading state is on screen long enough to see.
    let release: () => void = () => undefined;
    const held = new Promise<void>((r) => {
      release = r;
    });
    await page.route(/\/webhooks$/, async (route) => {
      if (route.request().method() === 'GET') await held;
      await route.continue();
    });
    await page.goto(`${baseUrl()}/console/`);
    await page.getByLabel('API key').fill(user.apiKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('Loading webhooks…').waitFor();
    release();
    await page.getByText('No webhooks yet.').waitFor();
    const path = newPath('listed');
    await page.getByLabel('Name *').fill('listed receiver');
    await page.getByLabel('URL *').fill(`${receiver.origin}${path}`);
    await page.getByLabel('addedToProject', { exact: true }).check();
    await page.getByRole('button', { name: 'Create webhook' }).click();
    await poll(() => toast(page).textContent()).toContain('Webhook “listed receiver” created');
    const row = page.getByRole('row').filter({ hasText: 'listed receiver' });
    await poll(() => row.textContent()).toContain('enabled');
    expect(await row.textContent()).toContain('no deliveries yet');
    await publish('addedToProject', 'for the list', [user.userId]);
    await untilDone(
      async () => at(path).length,
      (n) => n === 1,
      { what: 'the delivery' },
    );
    // Health comes from counters the history stream keeps: reload until it shows.
    await untilDone(
      async () => {
        await page.reload();
        return (await page.getByRole('row').filter({ hasText: 'listed receiver' }).textContent()) ?? '';
      },
      (text) => text.includes('100 % of 1 ok'),
      { what: 'the health in the list' },
    );
    await page.close();
  });

  it('edit routes a new type: the old type stops, the new one arrives', async () => {
    const user = await createKey('wh-edit');
    const path = newPath('edited');
    const control = newPath('control');
    const id = await createHook(user.apiKey, path, ['addedToProject']);
    await createHook(user.apiKey, control, ['addedToProject']);
    const page = await signedIn(user.apiKey);
    await openDetail(page, id);
    await page.getByRole('button', { name: 'Edit', exact: true }).click();
    await page.getByLabel('addedToProject', { exact: true }).uncheck();
    await page.getByLabel('queryCreated', { exact: true }).check();
    await page.getByLabel('Name', { exact: true }).fill('edited receiver');
    await page.getByRole('button', { name: 'Save' }).click();
    await poll(() => toast(page).textContent()).toContain('Webhook saved.');
    await page.getByRole('heading', { name: 'edited receiver' }).waitFor();
    const stored = await call('GET', `/webhooks/${id}`, { key: user.apiKey });
    expect(stored.body.notificationType).toEqual(['queryCreated']);

    await publish('addedToProject', 'old type', [user.userId]);
    await untilDone(
      async () => at(control).length,
      (n) => n === 1,
      { what: 'the control delivery' },
    );
    await publish('queryCreated', 'new type', [user.userId]);
    const got = await untilDone(
      async () => at(path),
      (r) => r.length === 1,
      { what: 'the new type' },
    );
    expect(JSON.parse(got[0]?.body ?? '{}').metadata.notificationType).toBe('queryCreated');
    expect(at(path).some((r) => r.body.includes('old type'))).toBe(false);
    await page.close();
  });

  it('a filter: its preview counts live while typing, a refusal shows line and column, saved it narrows deliveries', async () => {
    const user = await createKey('wh-filter');
    const path = newPath('filtered');
    const control = newPath('filter-control');
    const id = await createHook(user.apiKey, path, ['addedToProject']);
    await createHook(user.apiKey, control, ['addedToProject']);
    for (const text of ['wanted one', 'other two', 'wanted three'])
      await publish('addedToProject', text, [user.userId]);
    await untilDone(
      async () => (await historyOf(user.apiKey, id)).length,
      (n) => n === 3,
      { what: 'the three deliveries to preview against' },
    );
    const page = await signedIn(user.apiKey);
    await openDetail(page, id);
    await page.getByRole('button', { name: 'Edit', exact: true }).click();
    const field = page.getByLabel('Filter (optional, a CEL expression over the payload)');
    const preview = page.locator('#edit-filter-preview');
    await field.fill('text.startsWith("wanted"');
    await poll(() => preview.textContent()).toMatch(/^does not parse: .* at line 1, column \d+$/);
    expect(await field.getAttribute('aria-invalid')).toBe('true');
    await field.fill('text.startsWith("wanted")');
    await poll(() => preview.textContent()).toBe('Would deliver 2 of 3 recent notifications.');
    expect(await field.getAttribute('aria-invalid')).toBeNull();
    // The same count the API answers for the same expression.
    const api = await call('POST', '/webhooks/filters/preview', {
      key: user.apiKey,
      body: { filter: 'text.startsWith("wanted")', notificationType: 'addedToProject' },
    });
    expect(api.body).toMatchObject({ evaluated: 3, matched: 2, notMatched: 1, errors: 0 });
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await poll(() => toast(page).textContent()).toContain('Webhook saved.');
    await poll(() => page.locator('code.filter').textContent()).toBe('text.startsWith("wanted")');
    await page.getByRole('heading', { name: 'Health' }).waitFor();
    expect(await page.locator('[data-figure="filterErrors"]').textContent()).toBe('0');

    const before = at(path).length;
    await publish('addedToProject', 'other four', [user.userId]);
    await publish('addedToProject', 'wanted five', [user.userId]);
    await untilDone(
      async () => at(control).length,
      (n) => n === 5,
      { what: 'the control deliveries' },
    );
    const got = await untilDone(
      async () => at(path).slice(before),
      (r) => r.length === 1,
      { what: 'the filtered delivery' },
    );
    expect(JSON.parse(got[0]?.body ?? '{}').text).toBe('wanted five');
    expect(at(path).some((r) => r.body.includes('other four'))).toBe(false);

    // Emptying the field removes the filter. (The first save's toast may still be on screen, so
    // the page's own Filter entry says when this save is done.)
    await page.getByRole('button', { name: 'Edit', exact: true }).click();
    await field.fill('');
    await poll(() => preview.textContent()).toBe(
      'No filter: every notification of the chosen types is delivered.',
    );
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText('none: every notification of its types').waitFor();
    expect(await page.locator('code.filter').count()).toBe(0);
    expect((await call('GET', `/webhooks/${id}`, { key: user.apiKey })).body.filter).toBeUndefined();
    await page.close();
  });

  it('pause stops deliveries (with a confirmation); resume brings them back', async () => {
    const user = await createKey('wh-pause');
    const path = newPath('paused');
    const control = newPath('pause-control');
    const id = await createHook(user.apiKey, path, ['modelCommentCreated']);
    await createHook(user.apiKey, control, ['modelCommentCreated']);
    const page = await signedIn(user.apiKey);
    await openDetail(page, id);
    await page.getByLabel('Reason (optional)').fill('receiver maintenance');
    await page.getByRole('button', { name: 'Pause webhook' }).click();
    const dialog = page.getByRole('dialog', { name: 'Pause this webhook?' });
    // Cancel first: nothing changes.
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect((await call('GET', `/webhooks/${id}`, { key: user.apiKey })).body.status).toBe('enabled');
    await page.getByRole('button', { name: 'Pause webhook' }).click();
    await dialog.getByRole('button', { name: 'Pause webhook' }).click();
    await poll(() => page.locator('[data-status]').first().textContent()).toContain('paused');
    expect(await page.locator('[data-status]').first().textContent()).toContain('receiver maintenance');
    expect((await call('GET', `/webhooks/${id}`, { key: user.apiKey })).body.status).toBe('disabled');

    await publish('modelCommentCreated', 'while paused', [user.userId]);
    await untilDone(
      async () => at(control).length,
      (n) => n === 1,
      { what: 'the control delivery' },
    );
    expect(at(path)).toHaveLength(0);

    await page.getByRole('button', { name: 'Resume webhook' }).click();
    await poll(() => page.locator('[data-status]').first().textContent()).toBe('enabled');
    await publish('modelCommentCreated', 'after resume', [user.userId]);
    const got = await untilDone(
      async () => at(path),
      (r) => r.length === 1,
      { what: 'the delivery after resume' },
    );
    expect(got[0]?.body).toContain('after resume');
    await page.close();
  });

  it('rotate shows the new secret once, and standardwebhooks accepts the next delivery with it', async () => {
    const user = await createKey('wh-rotate');
    const path = newPath('rotated');
    const id = await createHook(user.apiKey, path, ['queryCreated'], {
      secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    });
    const page = await signedIn(user.apiKey);
    await openDetail(page, id);
    await page.getByRole('button', { name: 'Rotate secret' }).click();
    await page
      .getByRole('dialog', { name: 'Rotate the signing secret?' })
      .getByRole('button', { name: 'Rotate secret' })
      .click();
    const shown = page.getByRole('region', { name: 'New signing secret' });
    const secret = ((await shown.locator('[data-secret]').textContent()) ?? '').trim();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/=]+$/);
    const webhook = (await call('GET', `/webhooks/${id}`, { key: user.apiKey })).body;
    expect(await shown.textContent()).toContain(
      `keeps signing until ${await page.evaluate(
        (iso) => new Date(iso).toLocaleString(),
        webhook.previousSecretExpiresAt as string,
      )}`,
    );
    // Shown once: gone when dismissed, and never in the API's answers.
    await shown.getByRole('button', { name: 'I have stored it' }).click();
    expect(await page.getByText(secret).count()).toBe(0);
    expect(JSON.stringify(webhook)).not.toContain(secret);

    await page.getByRole('button', { name: 'Send test' }).click();
    const [delivery] = await untilDone(
      async () => at(path),
      (r) => r.length === 1,
      { what: 'the test send' },
    );
    const headers = Object.fromEntries(
      Object.entries(delivery?.headers ?? {}).map(([k, v]) => [k, String(v)]),
    );
    expect(() => new Verifier(secret).verify(delivery?.body ?? '', headers)).not.toThrow();
    expect(() =>
      new Verifier('whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA').verify(delivery?.body ?? '', headers),
    ).toThrow();
    await page.close();
  });

  it('a test send appears in the webhook’s own log, and the log finds it by webhook-id', async () => {
    const user = await createKey('wh-test');
    const path = newPath('tested');
    const id = await createHook(user.apiKey, path, ['queryCreated', 'addedToProject']);
    const other = await createHook(user.apiKey, newPath('other'), ['queryCreated']);
    await call('POST', `/webhooks/${other}/test`, { key: user.apiKey, body: {} });
    const page = await signedIn(user.apiKey);
    await openDetail(page, id);
    await page.getByLabel('Notification type').selectOption('addedToProject');
    await page.getByRole('button', { name: 'Send test' }).click();
    await poll(() => toast(page).textContent()).toContain('Test sent: 200');
    const records = await historyOf(user.apiKey, id);
    expect(records).toHaveLength(1);
    const [record] = records as [AnyRecord];
    expect(record).toMatchObject({ test: true, notificationType: 'addedToProject', statusCode: 200 });
    const log = page.getByRole('table', { name: 'Delivery log' });
    await poll(() => log.textContent()).toContain(record.deliveryId);
    expect(await log.textContent()).toContain('(test)');
    // Only this webhook's deliveries: the other webhook's test send is not in it.
    await poll(() => page.locator('.log-count').textContent()).toBe('1 attempt');
    await page.getByLabel('webhook-id').fill(record.deliveryId);
    await page.getByRole('button', { name: 'Search' }).click();
    await poll(() => page.locator('.log-count').textContent()).toBe(`1 attempt of ${record.deliveryId}`);
    await page.getByLabel('webhook-id').fill(`msg_${'0'.repeat(32)}_${id}`);
    await page.getByRole('button', { name: 'Search' }).click();
    await poll(() => page.locator('.log-count').textContent()).toContain('0 attempts');
    await page.close();
  });

  it('recover: a dry-run count first, then the job followed to its final count', async () => {
    const user = await createKey('wh-recover');
    const path = newPath('recovered');
    statusOf.set(path, 500);
    const id = await createHook(user.apiKey, path, ['taskValidated']);
    for (const n of [1, 2, 3]) await publish('taskValidated', `failing ${n}`, [user.userId]);
    // Each delivery fails all four attempts of the suite's retry schedule (1, 1, 2 s).
    await untilDone(
      async () => (await historyOf(user.apiKey, id)).length,
      (n) => n === 12,
      {
        what: 'the failed attempts',
      },
    );
    statusOf.set(path, 200);
    const page = await signedIn(user.apiKey);
    await openDetail(page, id);
    await page.getByRole('button', { name: 'Count deliveries' }).click();
    await poll(() => page.locator('[data-dry-run]').textContent()).toBe('3 deliveries would be re-sent.');
    const dryRun = await call('POST', `/webhooks/${id}/recover?dryRun=true`, {
      key: user.apiKey,
      body: { since: new Date(Date.now() - 3_600_000).toISOString() },
    });
    expect(dryRun.body.deliveries).toBe(3);
    expect(at(path).every((r) => !r.body.includes('"retryOf"'))).toBe(true);
    await page.getByRole('button', { name: 'Re-send 3 deliveries' }).click();
    await poll(() => page.locator('[data-job-status]').getAttribute('data-job-status'), {
      timeout: 60_000,
    }).toBe('finished');
    expect(await page.locator('[data-job-status]').textContent()).toContain(
      'Finished: 3 re-sent of 3 deliveries in the window',
    );
    const resent = (await historyOf(user.apiKey, id)).filter((r) => r.retryOf !== undefined);
    expect(resent.map((r) => r.statusCode)).toEqual([200, 200, 200]);
    await page.close();
  });

  it('the health figures agree with the webhook’s history: success rate, p50 and p95', async () => {
    const user = await createKey('wh-health');
    const path = newPath('measured');
    const failing = newPath('measured-failing');
    const id = await createHook(user.apiKey, path, ['queryCreated']);
    // Three answers that take different times, and one receiver path that fails every attempt.
    for (const ms of [20, 150, 400]) await publish('queryCreated', `slow ${ms}`, [user.userId]);
    await untilDone(
      async () => (await historyOf(user.apiKey, id)).length,
      (n) => n === 3,
      {
        what: 'the timed deliveries',
      },
    );
    await call('PATCH', `/webhooks/${id}`, {
      key: user.apiKey,
      body: { url: `${receiver.origin}${failing}` },
    });
    statusOf.set(failing, 503);
    await publish('queryCreated', 'slow 0 then failing', [user.userId]);
    const records = await untilDone(
      async () => historyOf(user.apiKey, id),
      (r) => r.length === 7,
      { progress: (r) => r.length, what: 'the failed attempts' },
    );
    // The figures follow the history by the stream's delay.
    await untilDone(
      async () => (await call('GET', `/webhooks/${id}`, { key: user.apiKey })).body.health,
      (h) => h.attempts24h === 7,
      { what: 'the counted attempts' },
    );
    const ok = records.filter((r) => r.statusCode >= 200 && r.statusCode < 300).length;
    const durations = records.map((r) => r.durationMs as number).sort((a, b) => a - b);
    const rank = (p: number) => durations[Math.ceil((p / 100) * durations.length) - 1];
    const page = await signedIn(user.apiKey);
    await openDetail(page, id);
    const figure = (name: string) => page.locator(`[data-figure="${name}"]`).textContent();
    expect(ok).toBe(3);
    expect(await figure('successRate24h')).toBe(`${((ok / 7) * 100).toFixed(1)} % of 7 attempts`);
    expect(await figure('p50')).toBe(`${rank(50)} ms`);
    expect(await figure('p95')).toContain(`${rank(95)} ms`);
    expect(await figure('p95')).toContain('over the newest 7 attempts');
    expect(await figure('failingSince')).toContain('4 failed in a row');
    // The log shows each attempt's duration as the history has it.
    const log = page.getByRole('table', { name: 'Delivery log' });
    await poll(() => log.textContent()).toContain(`${records[0]?.durationMs} ms`);
    await page.close();
  });
});

describe('the event catalog and the History page', () => {
  it('the catalog: every subscribable type, grouped, with its description and example payload', async () => {
    const { notificationCatalog, NOTIFICATION_NAMES, requiresAdmin } = await import(
      '../../shared/notifications/catalog'
    );
    const { adminKey } = await import('../support/api');
    const admin = await signedIn(adminKey());
    await admin.getByRole('link', { name: 'Event catalogue' }).click();
    await admin.getByRole('heading', { name: /System events/ }).waitFor();
    expect(await admin.locator('details.event').count()).toBe(NOTIFICATION_NAMES.length);
    const event = admin.locator('#event-modelAccessRequested');
    expect(await event.locator('summary').textContent()).toContain(
      notificationCatalog.modelAccessRequested.trigger,
    );
    await event.locator('summary').click();
    const example = JSON.parse((await event.locator('pre').textContent()) ?? '{}');
    expect(example).toMatchObject({
      text: expect.any(String),
      metadata: { notificationType: 'modelAccessRequested' },
      webhookId: expect.any(Number),
      webhookName: expect.any(String),
    });
    await admin.close();

    const user = await createKey('wh-catalogue');
    const page = await signedIn(user.apiKey);
    await page.getByRole('link', { name: 'Event catalogue' }).click();
    await page.getByRole('heading', { name: /Activity/ }).waitFor();
    expect(await page.getByRole('heading', { name: /System events/ }).count()).toBe(0);
    expect(await page.locator('details.event').count()).toBe(
      NOTIFICATION_NAMES.filter((n) => !requiresAdmin(n)).length,
    );
    expect(await page.locator('#event-attributeAdded').count()).toBe(0);
    await page.close();
  });

  it('History: the webhook-id as the row’s id, a connection failure’s reason, the chart fitted and green', async () => {
    const user = await createKey('wh-history');
    // A closed port: the attempt gets no HTTP answer.
    const closed = await startLoopback(() => ({ status: 200 }));
    const deadUrl = `${closed.origin}/gone`;
    await closed.close();
    const dead = (
      await call('POST', '/webhooks', {
        key: user.apiKey,
        body: {
          webhooks: [
            {
              name: 'dead',
              url: deadUrl,
              global: false,
              actionType: 'receive',
              notificationType: ['queryUpdated'],
            },
          ],
        },
      })
    ).body.createdWebhooks[0].id as number;
    const live = await createHook(user.apiKey, newPath('live'), ['queryUpdated']);
    await publish('queryUpdated', 'to both', [user.userId]);
    await untilDone(
      async () => (await historyOf(user.apiKey, dead)).length,
      (n) => n === 4,
      {
        what: 'the refused attempts',
      },
    );
    const [delivered] = await historyOf(user.apiKey, live);
    const page = await signedIn(user.apiKey);
    await page.getByRole('link', { name: 'Delivery history' }).click();
    const table = page.getByRole('table', { name: 'Delivery records' });
    await poll(() => table.textContent()).toContain('connection refused (ECONNREFUSED)');
    expect(await table.textContent()).toContain(delivered?.deliveryId);
    expect(await table.textContent()).not.toContain(String(delivered?.id));

    // The chart: as wide as its container, the newest bar inside the plot, green as its legend.
    const width = await page.evaluate<{ figure: number; canvas: number }>(`(() => {
      const figure = document.querySelector('figure.chart');
      return { figure: figure.clientWidth, canvas: figure.querySelector('canvas').getBoundingClientRect().width };
    })()`);
    // Wider than the 900 px it was fixed at, and following a narrower window.
    expect(width.canvas).toBeGreaterThan(Math.max(900, width.figure - 80));
    const canvasWidth = () =>
      page.evaluate<number>(`document.querySelector('figure.chart canvas').getBoundingClientRect().width`);
    await page.setViewportSize({ width: 700, height: 900 });
    await poll(canvasWidth).toBeLessThan(680);
    await page.setViewportSize({ width: 1280, height: 900 });
    await poll(canvasWidth).toBeGreaterThan(900);
    // Every opaque pixel in a bar colour, the rightmost of them, and the plot area's right edge.
    const paint = () =>
      page.evaluate<{
        seen: string[];
        rightmost: number;
        plotRight: number;
        legend: string[];
      }>(`(() => {
      const canvas = document.querySelector('figure.chart canvas');
      const over = document.querySelector('figure.chart .u-over').getBoundingClientRect();
      const scale = canvas.width / canvas.getBoundingClientRect().width;
      const { data, width: w, height: h } = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
      const seen = new Set();
      let rightmost = 0;
      for (let y = 0; y < h; y++)
        for (let x = 0; x < w; x++) {
          const i = (y * w + x) * 4;
          const rgb = data[i] + ',' + data[i + 1] + ',' + data[i + 2];
          if (data[i + 3] === 255 && (rgb === '26,127,55' || rgb === '207,34,46')) {
            seen.add(rgb);
            rightmost = Math.max(rightmost, x);
          }
        }
      const plotRight = (over.right - canvas.getBoundingClientRect().left) * scale;
      const legend = [...document.querySelectorAll('.u-legend .u-series:not(:first-child) .u-marker')].map((m) => getComputedStyle(m).backgroundColor);
      return { seen: [...seen], rightmost, plotRight, legend };
    })()`);
    // The bars are painted in exactly the legend's colours (no blend), and the newest is not cut.
    // The chart repaints in an animation frame after the resize (under load that frame came
    // after the canvas was read, which held no bars yet): wait for the paint.
    await poll(async () => (await paint()).seen.sort()).toEqual(['207,34,46', '26,127,55']);
    const colours = await paint();
    expect(colours.seen.sort()).toEqual(['207,34,46', '26,127,55']);
    expect(colours.legend).toEqual(['rgb(26, 127, 55)', 'rgb(207, 34, 46)']);
    expect(colours.rightmost).toBeLessThan(colours.plotRight - 2);
    // Hovering the newest hour shows its counts in the legend; leaving shows the 24 h totals.
    const over = page.locator('figure.chart .u-over');
    const box = (await over.boundingBox()) as { x: number; y: number; width: number; height: number };
    await page.mouse.move(box.x + box.width - 8, box.y + box.height / 2);
    const values = () => page.locator('.u-legend .u-value').allTextContents();
    await poll(values).toEqual([expect.stringMatching(/\d/), '1', '4']);
    await page.mouse.move(box.x - 40, box.y - 40);
    await poll(values).toEqual(['last 24 h', '1', '4']);
    await page.close();
  });

  it('a non-admin sees no admin controls, and the API still refuses them', async () => {
    const user = await createKey('wh-plain');
    const id = await createHook(user.apiKey, newPath('plain'), ['queryCreated']);
    const stranger = await createKey('wh-stranger');
    const theirs = await createHook(stranger.apiKey, newPath('theirs'), ['queryCreated']);
    const page = await signedIn(user.apiKey);
    await openDetail(page, id);
    await page.getByRole('button', { name: 'Edit', exact: true }).click();
    await page.getByLabel('Name', { exact: true }).waitFor();
    expect(await page.getByLabel('Global (receives every subscribed notification)').count()).toBe(0);
    expect(await page.getByLabel('attributeAdded', { exact: true }).count()).toBe(0);
    expect(await page.getByLabel(/ALL_NOTIFICATIONS/).count()).toBe(0);
    // From the signed-in page, with the key the console holds: the API refuses what it hides.
    const patch = (body: unknown) =>
      page.evaluate<{ status: number; body: { message: string } }>(
        `fetch('/webhooks/${id}', {
          method: 'PATCH',
          headers: { Authorization: sessionStorage.getItem('causeway.apiKey'), 'Content-Type': 'application/json' },
          body: ${JSON.stringify(JSON.stringify(body))},
        }).then(async (r) => ({ status: r.status, body: await r.json() }))`,
      );
    const global = await patch({ global: true });
    expect(global.status).toBe(400);
    expect(global.body.message).toContain('global');
    const system = await patch({ notificationType: ['attributeAdded'] });
    expect(system.status).toBe(400);
    expect(system.body.message).toContain('attributeAdded');
    // Another user's webhook: the API's 404, and no actions offered.
    await page.goto(`${baseUrl()}/console/#/webhooks/${theirs}`);
    await poll(() => page.getByRole('alert').first().textContent()).toContain('404');
    expect(await page.getByRole('button', { name: /Pause|Rotate|Send test|Edit/ }).count()).toBe(0);
    await page.close();
  });
});
