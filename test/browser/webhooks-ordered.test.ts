/**
 * Ordered delivery per key from the console (issue 41, step 2; ADR 0020), in real Chromium
 * against the tier's local cloud: the create form's "Ordered delivery per key" checkbox (its hint
 * tied to it) sends `ordered: true`, the detail page shows the setting, and the edit form turns
 * it off with a PATCH of `ordered` alone. What the API stores is read back each time.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createKey } from '../support/api';
import { closePages, launchBrowser, signedIn } from '../support/browser';

let browser: Browser;

beforeAll(async () => {
  browser = await launchBrowser();
});

afterAll(async () => {
  await closePages(browser);
});

const toast = (page: Page) => page.locator('.toasts');
const poll = <T>(probe: () => Promise<T>) => expect.poll(probe, { timeout: 60_000 });
const orderedOf = async (key: string, id: number) =>
  (await call('GET', `/webhooks/${id}`, { key })).body.ordered as unknown;

describe('ordered delivery in the console', () => {
  it('creates an ordered webhook, shows it on the detail page, and turns it off with edit', async () => {
    const user = await createKey('ordered-console');
    const page = await signedIn(browser, user.apiKey);
    await page.getByLabel('Name *').fill('ordered receiver');
    // Nothing listens: the test needs the settings, never a delivery.
    await page.getByLabel('URL *').fill(`http://127.0.0.1:9/ordered-console-${Date.now()}`);
    const box = page.getByRole('checkbox', { name: 'Ordered delivery per key' });
    expect(await box.isChecked()).toBe(false);
    // The hint is the box's description.
    const hint = await box.getAttribute('aria-describedby');
    expect(await page.locator(`[id="${hint}"]`).textContent()).toContain(
      'same ordering key arrive one at a time',
    );
    await box.check();
    await page.getByLabel('queryCreated', { exact: true }).check();
    const posted = page.waitForRequest(
      (r) => r.method() === 'POST' && new URL(r.url()).pathname === '/webhooks',
    );
    await page.getByRole('button', { name: 'Create webhook' }).click();
    expect((await posted).postDataJSON().webhooks[0].ordered).toBe(true);
    await poll(() => toast(page).textContent()).toContain('Webhook “ordered receiver” created');
    // The form is reset for the next webhook.
    await poll(() => box.isChecked()).toBe(false);

    await page.getByRole('link', { name: 'ordered receiver' }).click();
    await page.getByRole('heading', { name: 'Health' }).waitFor();
    const id = Number(new URL(page.url()).hash.split('/').pop());
    expect(await orderedOf(user.apiKey, id)).toBe(true);
    const shown = page.locator('dd[data-ordered]');
    expect(await shown.textContent()).toBe('per ordering key (one at a time, in order)');

    await page.getByRole('button', { name: 'Edit', exact: true }).click();
    const editBox = page
      .getByRole('form', { name: 'Edit webhook' })
      .getByRole('checkbox', { name: 'Ordered delivery per key' });
    expect(await editBox.isChecked()).toBe(true);
    await editBox.uncheck();
    const patched = page.waitForRequest((r) => r.method() === 'PATCH');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    expect((await patched).postDataJSON()).toEqual({ ordered: false });
    await poll(() => toast(page).textContent()).toContain('Webhook saved.');
    await poll(() => shown.textContent()).toBe('not ordered');
    expect(await orderedOf(user.apiKey, id)).toBe(false);
    await page.close();
  });
});
