/**
 * The console's shared primitives in Chromium against the local cloud: the favicon, the
 * loading state, a success toast, the confirmation dialog before a destructive action (Escape
 * and Cancel keep the thing, confirming deletes it) and an action's error beside its button.
 */
import type { Browser, Locator, Page, Route } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminKey, baseUrl, call, createKey } from '../support/api';
import { closePages, createEnabledIntegration, launchBrowser, signedIn } from '../support/browser';
import { payloads, uid } from '../unit/integrations/fixtures';

let browser: Browser;

beforeAll(async () => {
  browser = await launchBrowser();
});

afterAll(async () => {
  await closePages(browser);
});

async function createWebhook(key: string, name: string): Promise<number> {
  const created = await call('POST', '/webhooks', {
    key,
    body: {
      webhooks: [
        {
          name,
          url: 'https://example.com/primitives',
          global: false,
          actionType: 'receive',
          notificationType: ['addedToProject'],
        },
      ],
    },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const listed = await call('GET', '/webhooks', { key });
  const found = (listed.body as { id: number; name: string }[]).find((w) => w.name === name);
  return found?.id as number;
}

/** Whether the element lies inside the viewport (what the user sees without scrolling). */
async function inView(page: Page, locator: Locator): Promise<boolean> {
  const box = await locator.boundingBox();
  const viewport = page.viewportSize();
  // Scrolled to the nearest edge, a box may end a fraction of a pixel past it.
  return Boolean(
    box && viewport && box.height > 0 && box.y >= 0 && box.y + box.height <= viewport.height + 1,
  );
}

describe('console primitives', () => {
  it('every page declares the favicon and it is served', async () => {
    const page = await signedIn(browser, adminKey());
    const missing: string[] = [];
    page.on('response', (r) => {
      if (r.status() >= 400 && new URL(r.url()).pathname.startsWith('/console/')) missing.push(r.url());
    });
    for (const hash of ['#/integrations', '#/integrations/new', '#/webhooks', '#/history']) {
      await page.goto(`${baseUrl()}/console/${hash}`);
      await page.getByRole('navigation', { name: 'Sections' }).waitFor();
      const href = await page.locator('link[rel="icon"]').getAttribute('href');
      expect(href).toBe('/console/favicon.svg');
    }
    const icon = await fetch(`${baseUrl()}/console/favicon.svg`);
    expect(icon.status).toBe(200);
    expect(icon.headers.get('content-type')).toBe('image/svg+xml');
    expect(await icon.text()).toContain('<svg');
    expect(missing).toEqual([]);
    await page.close();
  });

  it('a list shows its loading state until the API answers', async () => {
    const user = await createKey(`primitives-loading-${uid()}`);
    const page = await signedIn(browser, user.apiKey);
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    await page.route(/\/webhooks$/, async (route: Route) => {
      await held;
      await route.continue();
    });
    // Leave the list (it was loaded on sign-in) and come back, so it mounts again under the held
    // route. Wait for the history page first: two hash changes in a row can both be committed
    // before the console handles the first `hashchange` (it reads location.hash, already
    // #/webhooks, so the list never unmounts and shows its loaded state). Under CI load that
    // happened and the loading state never appeared.
    await page.goto(`${baseUrl()}/console/#/history`);
    await page.getByRole('heading', { name: 'Delivery history' }).waitFor();
    await page.goto(`${baseUrl()}/console/#/webhooks`);
    const loading = page.getByRole('status').filter({ hasText: 'Loading webhooks…' });
    await loading.waitFor();
    expect(await loading.getAttribute('aria-busy')).toBe('true');
    release();
    await page.getByText('No webhooks yet.').waitFor();
    expect(await loading.count()).toBe(0);
    await page.close();
  });

  it('creating a webhook says so in a toast', async () => {
    const user = await createKey(`primitives-toast-${uid()}`);
    const page = await signedIn(browser, user.apiKey);
    await page.getByLabel('Name *').fill('toasted');
    await page.getByLabel('URL *').fill('https://example.com/toasted');
    await page.getByLabel('addedToProject', { exact: true }).check();
    await page.getByRole('button', { name: 'Create webhook' }).click();
    const toasts = page.getByRole('region', { name: 'Notifications' });
    await expect.poll(() => toasts.textContent()).toContain('Webhook “toasted” created');
    expect(await toasts.getAttribute('aria-live')).toBe('polite');
    await page.close();
  });

  it('deleting a webhook asks first: Escape and Cancel keep it, confirming deletes it', async () => {
    const user = await createKey(`primitives-confirm-${uid()}`);
    const id = await createWebhook(user.apiKey, 'to be deleted');
    const page = await signedIn(browser, user.apiKey);
    await page.goto(`${baseUrl()}/console/#/webhooks/${id}`);
    const remove = page.getByRole('button', { name: 'Delete webhook' });
    await remove.click();
    const dialog = page.getByRole('dialog', { name: 'Delete webhook “to be deleted”?' });
    await dialog.waitFor();
    // Focus starts on Cancel, so Enter alone never destroys anything.
    expect(await page.evaluate<string | undefined>('document.activeElement?.textContent')).toBe('Cancel');
    await page.keyboard.press('Escape');
    await expect.poll(() => dialog.count()).toBe(0);
    await remove.click();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await expect.poll(() => dialog.count()).toBe(0);
    expect((await call('GET', `/webhooks/${id}`, { key: user.apiKey })).status).toBe(200);

    await remove.click();
    await dialog.getByRole('button', { name: 'Delete webhook' }).click();
    await page.waitForURL(/#\/webhooks$/);
    await expect
      .poll(() => page.getByRole('region', { name: 'Notifications' }).textContent())
      .toContain('Webhook “to be deleted” deleted');
    expect((await call('GET', `/webhooks/${id}`, { key: user.apiKey })).status).toBe(404);
    await page.close();
  });

  it('an automatic integration deleted without credentials: the refusal shows beside Delete, in view', async () => {
    const id = await createEnabledIntegration(payloads(uid()).AnalyticsWarehouse);
    // What the form sends with its credential fields left empty: the authentication choice alone.
    const refused = await call('DELETE', `/integrations/${id}`, {
      body: { authenticationType: 'userPassword' },
    });
    expect(refused.status).toBe(400);

    const page = await signedIn(browser, adminKey());
    await page.goto(`${baseUrl()}/console/#/integrations/${id}`);
    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete integration' }).click();
    const beside = page.locator('.actions:has(button.danger) .action-error');
    await expect.poll(() => beside.textContent()).toBe(refused.body.message);
    expect(await beside.getAttribute('role')).toBe('alert');
    await expect.poll(() => inView(page, beside)).toBe(true);
    expect((await call('GET', `/integrations/${id}`)).body.status).toBe('enabled');
    await page.close();
  });
});
