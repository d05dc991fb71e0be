/**
 * An ordered webhook's parked keys from the console (issue 41, steps 4-5; ADR 0020), in real
 * Chromium against the tier's local cloud: the detail page's "Parked keys" section lists the keys
 * that are not flowing, Resume drains a key (its head reaches the receiver and the row goes),
 * Skip head asks first and sends the row's `headDeliveryId` (a stale one is the API's 409, shown
 * beside the table), and the health figures count the parked keys. Keys are parked in the store
 * as the ordered deliveries consumer parks them, without waiting out a retry schedule.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseUrl, call, createKey, untilDone } from '../support/api';
import { closePages, launchBrowser, signedIn } from '../support/browser';
import { type LoopbackServer, type ReceivedRequest, startLoopback } from '../support/loopback';
import { createOrderedWebhook, parkedHead, parkKeys } from '../support/parked-keys';

let browser: Browser;
let receiver: LoopbackServer;
const received: ReceivedRequest[] = [];

beforeAll(async () => {
  browser = await launchBrowser();
  receiver = await startLoopback((req) => {
    received.push(req);
    return { status: 200, body: 'ok' };
  });
});

afterAll(async () => {
  await closePages(browser);
  await receiver?.close();
});

const toast = (page: Page) => page.locator('.toasts');
const poll = <T>(probe: () => Promise<T>) => expect.poll(probe, { timeout: 60_000 });
const textsAt = (path: string) =>
  received.filter((r) => r.url.pathname === path).map((r) => JSON.parse(r.body).text as string);

/** The head of key `key`, as parked below: its own `webhook-id` and text. */
const head = (webhookId: number, n: number, key: string) => parkedHead(webhookId, n, key, 'parked key');

describe('parked keys in the console', () => {
  it('lists the parked keys, resumes one, skips the head of the other, and counts them', async () => {
    const user = await createKey('parked-keys-console');
    const path = `/parked-keys-${Date.now()}`;
    const id = await createOrderedWebhook(user.apiKey, 'parked receiver', `${receiver.origin}${path}`);
    await parkKeys(
      id,
      [
        [1, 'tenant/1'],
        [2, 'tenant-2'],
      ],
      'parked key',
    );

    const page = await signedIn(browser, user.apiKey);
    await page.goto(`${baseUrl()}/console/#/webhooks/${id}`);
    const section = page.getByRole('region', { name: 'Parked keys' });
    const table = section.getByRole('table', { name: 'Parked keys' });
    await table.waitFor();
    const row = (key: string) => table.locator(`tr[data-key="${key}"]`);
    const cells = async (key: string) =>
      (await row(key).locator('th, td').allTextContents()).slice(0, 6).map((t) => t.trim());
    expect(await cells('tenant/1')).toEqual([
      'tenant/1',
      'parked',
      '1',
      head(id, 1, '').deliveryId,
      expect.any(String),
      'HTTP 500',
    ]);
    expect((await cells('tenant-2'))[3]).toBe(head(id, 2, '').deliveryId);
    const figure = page.locator('dd[data-figure="parkedKeys"]');
    await poll(async () => (await figure.textContent())?.startsWith('2')).toBe(true);

    // Resume: the key goes in the path percent-encoded; its head reaches the receiver, the row goes.
    const resumed = page.waitForRequest((r) => r.method() === 'POST' && r.url().includes('/resume'));
    await section.getByRole('button', { name: 'Resume key tenant/1' }).click();
    expect(new URL((await resumed).url()).pathname).toBe(`/webhooks/${id}/ordering-keys/tenant%2F1/resume`);
    await poll(() => toast(page).textContent()).toContain('Key “tenant/1” resumed');
    await untilDone(
      async () => textsAt(path),
      (texts) => texts.includes('parked key 1'),
      { what: 'the resumed head delivered' },
    );
    await poll(() => row('tenant/1').count()).toBe(0);
    await poll(async () => (await figure.textContent())?.startsWith('1')).toBe(true);

    // A head that is no longer the one listed: the API's 409, beside the table; nothing skipped.
    const skipButton = section.getByRole('button', { name: 'Skip head of key tenant-2' });
    const stale = `msg_${'9'.repeat(32)}_${id}`;
    await page.route('**/ordering-keys/tenant-2/skip', (route) =>
      route.continue({ postData: JSON.stringify({ headDeliveryId: stale }) }),
    );
    await skipButton.click();
    await page
      .getByRole('dialog', { name: 'Skip the head of key “tenant-2”?' })
      .getByRole('button', { name: 'Skip head' })
      .click();
    const refusal = section.getByRole('alert');
    await poll(() => refusal.textContent()).toContain(`${stale} is not the head of ordering key "tenant-2"`);
    expect(await row('tenant-2').locator('td').first().textContent()).toBe('parked');
    await page.unroute('**/ordering-keys/tenant-2/skip');

    // Skip head, confirmed: the row's head is sent along; the key drains without it.
    const dialog = page.getByRole('dialog', { name: 'Skip the head of key “tenant-2”?' });
    await skipButton.click();
    await dialog.waitFor();
    expect(await dialog.textContent()).toContain(head(id, 2, '').deliveryId);
    const skipped = page.waitForRequest((r) => r.method() === 'POST' && r.url().includes('/skip'));
    await dialog.getByRole('button', { name: 'Skip head' }).click();
    expect((await skipped).postDataJSON()).toEqual({ headDeliveryId: head(id, 2, '').deliveryId });
    await poll(() => toast(page).textContent()).toContain(`Skipped ${head(id, 2, '').deliveryId}`);
    await poll(() => section.getByText('Every key is flowing.').count()).toBe(1);
    expect(await section.getByRole('alert').count()).toBe(0);
    await poll(async () => (await figure.textContent())?.startsWith('0')).toBe(true);
    const listed = await call('GET', `/webhooks/${id}/ordering-keys`, { key: user.apiKey });
    expect(listed.body.keys).toEqual([]);
    // The skipped head was never sent.
    expect(textsAt(path)).toEqual(['parked key 1']);
    await page.close();
  });
});
