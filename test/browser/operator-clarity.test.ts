/**
 * What a new user found unclear in the console (issue 34 §3, §8): each operator script is offered
 * only where it applies and says when to run it (never a cleanup of a working setup, never
 * numbered as steps); configuration reads in the schema's order with labels and help; a type
 * without setup says so; the webhooks list shows the owner; an admin looking at another user's
 * webhook learns why its log is empty; the pause reason does not outlive the pause; a toast never
 * covers the Recover checkbox.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runManualSetup } from '../integration/integrations/helpers';
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

/** A webhook on a URL of its own (a user may put only one webhook on a URL). */
const hook = (name: string) => ({
  name,
  url: `https://receiver.example/${uid()}`,
  global: false,
  actionType: 'receive',
  notificationType: ['addedToProject'],
});

describe('integration detail', () => {
  it('a manual setup offers its edit and removal scripts, unnumbered, each saying when; never a cleanup', async () => {
    const body = payloads(uid()).ClusterWarehouse as {
      autoBootstrap: boolean;
      config: Record<string, unknown>;
    };
    body.autoBootstrap = false;
    delete body.config.initialDatabase;
    await runManualSetup(body);
    const id = await createEnabledIntegration(body);
    const page = await signedIn(browser, adminKey());
    await page.goto(`${baseUrl()}/console/#/integrations/${id}`);
    const scripts = page.getByRole('region', { name: 'Scripts for the operator' });
    await scripts.waitFor();
    expect(await scripts.locator('ol').count()).toBe(0);
    const buttons = await scripts.getByRole('button').allTextContents();
    expect(buttons).toEqual(['Generate edit', 'Generate delete', 'Generate post-cleanup']);
    const text = await scripts.textContent();
    expect(text).toContain('Before you save an edit');
    expect(text).toContain('Before you delete this integration');

    // Configuration in the schema's order, labelled in words, with help from the descriptions.
    const config = page.locator('dl.config').first();
    const labels = await config.locator(':scope > dt').allTextContents();
    expect(labels.slice(0, 2)).toEqual(['Host', 'Database']);
    expect(labels).toContain('Authentication type');
    expect(await config.textContent()).toContain('new, empty database the service account manages');
    await page.close();
  });

  it('an automatic setup that works offers no script at all, and a type without setup says so', async () => {
    const id = await createEnabledIntegration(payloads(uid()).ClusterWarehouse);
    const federated = await call('POST', '/integrations', { body: { type: 'FederatedSql' } });
    expect([200, 201, 202]).toContain(federated.status);
    const page = await signedIn(browser, adminKey());
    await page.goto(`${baseUrl()}/console/#/integrations/${id}`);
    await page.getByRole('heading', { name: `Integration #${id} · ClusterWarehouse` }).waitFor();
    await page.locator('dl.config').first().waitFor();
    expect(await page.getByRole('region', { name: 'Scripts for the operator' }).count()).toBe(0);
    expect(await page.getByText('Clean up after the failed setup').count()).toBe(0);

    await page.goto(`${baseUrl()}/console/#/integrations`);
    const row = page
      .getByRole('row')
      .filter({ has: page.getByRole('link', { name: `#${federated.body.id}`, exact: true }) });
    await row.waitFor();
    const headers = await page.getByRole('columnheader').allTextContents();
    const cells = await row.getByRole('cell').allTextContents();
    expect(cells[headers.indexOf('Setup')]).toBe('none');
    await page.close();
  });
});

describe('webhook screens', () => {
  it('the list names each owner; an admin on another user’s webhook learns why its log is empty', async () => {
    const other = await createKey(`clarity-owner-${uid()}`);
    const name = `someone else’s ${uid()}`;
    const created = await call('POST', '/webhooks', { key: other.apiKey, body: { webhooks: [hook(name)] } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const theirs = created.body.createdWebhooks[0].id as number;
    const mine = `mine ${uid()}`;
    expect((await call('POST', '/webhooks', { body: { webhooks: [hook(mine)] } })).status).toBe(201);

    const page = await signedIn(browser, adminKey());
    await page.goto(`${baseUrl()}/console/#/webhooks`);
    await page.getByRole('table').waitFor();
    const headers = await page.getByRole('columnheader').allTextContents();
    const ownerCell = async (webhook: string) =>
      (
        await page
          .getByRole('row')
          .filter({ has: page.getByRole('link', { name: webhook, exact: true }) })
          .getByRole('cell')
          .allTextContents()
      )[headers.indexOf('Owner')];
    expect(await ownerCell(name)).toBe(`user #${other.userId}`);
    expect(await ownerCell(mine)).toBe('you');

    await page.goto(`${baseUrl()}/console/#/webhooks/${theirs}`);
    const log = page.getByRole('region', { name: 'Delivery log' });
    await expect.poll(() => log.textContent()).toContain(`belong to its owner (user #${other.userId})`);
    await page.close();
  });

  it('the pause reason is gone after Resume, and a toast leaves the Recover checkbox usable', async () => {
    const created = await call('POST', '/webhooks', { body: { webhooks: [hook(`paused ${uid()}`)] } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.createdWebhooks[0].id as number;
    // A phone's width: the actions stack in one column and a toast spans nearly the whole width.
    const page = await signedIn(browser, adminKey(), 390);
    await page.goto(`${baseUrl()}/console/#/webhooks/${id}`);
    const reason = page.getByLabel('Reason (optional)');
    await reason.fill('receiver maintenance');
    await page.getByRole('button', { name: 'Pause webhook' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Pause webhook' }).click();
    await page.getByRole('button', { name: 'Resume webhook' }).click();
    await reason.waitFor();
    expect(await reason.inputValue()).toBe('');

    // Toasts are showing (Pause's and Resume's). Pointer input passes through a toast to what is
    // under it, wherever that is; only its Dismiss button takes a click. And the Recover
    // checkbox, wherever the page scrolls it, is the element under its own centre.
    const toasts = page.getByRole('region', { name: 'Notifications' });
    await toasts.getByText('Webhook resumed.').waitFor();
    const hit = (selector: string) =>
      page.evaluate<string>(`(() => {
        const r = document.querySelector('${selector}').getBoundingClientRect();
        const at = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
        return at ? (at.closest('.toast') ? (at.tagName === 'BUTTON' ? 'dismiss' : 'toast') : 'page') : 'none';
      })()`);
    expect(await hit('.toast span')).toBe('page');
    expect(await hit('.toast button')).toBe('dismiss');
    const checkbox = page.locator('.action').filter({ hasText: 'Recover' }).getByRole('checkbox');
    await checkbox.evaluate((el) => el.setAttribute('data-probe', 'recover'));
    for (const block of ['start', 'center', 'end']) {
      await page.evaluate(
        `document.querySelector('[data-probe="recover"]').scrollIntoView({ block: '${block}' })`,
      );
      expect(await hit('[data-probe="recover"]'), `scrolled to ${block}`).toBe('page');
    }
    await checkbox.click();
    expect(await checkbox.isChecked()).toBe(false);
    await page.close();
  });
});
