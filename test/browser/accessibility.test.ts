/**
 * Accessibility of every console screen in Chromium against the local cloud: axe-core (through
 * @axe-core/playwright) checks each screen against WCAG 2.1 A and AA and the test fails on any
 * serious or critical violation; the main flows are done with the keyboard alone. In a
 * screenshot run (`npm run console:screenshots`) each screen checked is also saved under
 * docs/console/ and the gallery in docs/console.md is written from the same list.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminKey, baseUrl, call, createKey, eventually, useLocalCloudEnv } from '../support/api';
import {
  closePages,
  createEnabledIntegration,
  createIntegrationReaching,
  launchBrowser,
  newPage,
  repoRoot,
  savingScreenshots,
  screenshot,
  signedIn,
} from '../support/browser';
import { type LoopbackServer, startLoopback } from '../support/loopback';
import { createOrderedWebhook, parkKeys } from '../support/parked-keys';
import { payloads, uid } from '../unit/integrations/fixtures';

let browser: Browser;
let receiver: LoopbackServer;
/** Every screen checked, in order: its file name under docs/console/ and its caption. */
const screens: { name: string; title: string }[] = [];

beforeAll(async () => {
  browser = await launchBrowser();
  receiver = await startLoopback(() => ({ status: 200, body: 'ok' }));
});

afterAll(async () => {
  await closePages(browser);
  await receiver?.close();
  if (savingScreenshots && screens.length > 0) writeGallery();
});

/** Rewrites the gallery between its markers in docs/console.md from the screens just saved. */
function writeGallery(): void {
  const file = join(repoRoot, 'docs', 'console.md');
  const text = readFileSync(file, 'utf8');
  const start = '<!-- screenshots: written by npm run console:screenshots -->';
  const end = '<!-- /screenshots -->';
  const from = text.indexOf(start);
  const to = text.indexOf(end);
  if (from < 0 || to < from) throw new Error(`docs/console.md has no ${start} … ${end} section`);
  const gallery = screens.map((s) => `### ${s.title}\n\n![${s.title}](console/${s.name}.png)\n`).join('\n');
  writeFileSync(file, `${text.slice(0, from + start.length)}\n\n${gallery}\n${text.slice(to)}`);
}

/** The page's serious and critical WCAG 2.1 A/AA violations, one line each (rule, help, where). */
async function blockingViolations(page: Page): Promise<string[]> {
  const result = await new AxeBuilder({ page })
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'])
    .analyze();
  expect(result.passes.length, 'axe ran its rules').toBeGreaterThan(0);
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

/** Fails on serious or critical violations; saves the screen in a screenshot run. */
async function checkScreen(page: Page, name: string, title: string): Promise<void> {
  expect(await blockingViolations(page), `${title}: axe violations`).toEqual([]);
  screens.push({ name, title });
  await screenshot(page, name);
}

/**
 * The two tours of every screen take 18–21 s alone, and axe's check of one screen took 7–17 s
 * with the tier's other files beside it (the tour of the integration screens passed the tier's
 * 90 s once so): this bound, about ten times the quiet time, only guards against a hang.
 */
const SCREEN_TOUR_TIMEOUT_MS = 200_000;

const at = (page: Page, hash: string) => page.goto(`${baseUrl()}/console/${hash}`);

describe('accessibility (axe-core, WCAG 2.1 A and AA, serious and critical fail)', () => {
  it('the check itself fails on a critical violation (an image without a text alternative)', async () => {
    const page = await newPage(browser);
    await page.goto(`${baseUrl()}/console/`);
    await page.getByLabel('API key').waitFor();
    await page.evaluate(`document.querySelector('main').append(document.createElement('img'))`);
    expect((await blockingViolations(page)).join('\n')).toMatch(/^image-alt \(critical\)/m);
    await page.close();
  });

  it('every integration screen, as an admin', { timeout: SCREEN_TOUR_TIMEOUT_MS }, async () => {
    const page = await newPage(browser);
    await page.goto(`${baseUrl()}/console/`);
    await page.getByLabel('API key').waitFor();
    await checkScreen(page, 'sign-in', 'Sign-in');
    await page.close();

    const id = await createEnabledIntegration(payloads(uid()).AnalyticsWarehouse);
    const failed = payloads(uid()).ClusterWarehouse as { config: Record<string, string> };
    failed.config.password = 'fail-compensation';
    const failedId = await createIntegrationReaching(failed, 'createError');

    const admin = await signedIn(browser, adminKey());
    await at(admin, '#/integrations');
    await admin.getByRole('link', { name: `#${id}`, exact: true }).waitFor();
    await checkScreen(admin, 'integrations', 'Integrations');

    await at(admin, '#/integrations/new');
    await admin.getByLabel('Platform type').selectOption('ClusterWarehouse');
    await checkScreen(admin, 'integration-new', 'New integration');
    await admin.getByRole('button', { name: 'Dry run', exact: true }).click();
    await admin.locator('[aria-invalid="true"]').first().waitFor();
    await checkScreen(admin, 'integration-dry-run', 'New integration: an empty dry run');

    await at(admin, `#/integrations/${id}`);
    await admin.getByRole('heading', { name: 'Configuration' }).waitFor();
    await checkScreen(admin, 'integration-detail', 'Integration detail');
    await admin.getByRole('button', { name: 'Edit', exact: true }).click();
    await admin.getByRole('heading', { name: 'Edit' }).waitFor();
    await checkScreen(admin, 'integration-edit', 'Integration: edit (locked fields, stored secrets)');
    await admin.getByRole('button', { name: 'Delete', exact: true }).click();
    await admin.getByRole('dialog').waitFor();
    await checkScreen(admin, 'integration-delete-confirm', 'Integration: confirm the delete');
    await admin.keyboard.press('Escape');

    await at(admin, `#/integrations/${failedId}`);
    await admin.getByRole('region', { name: 'Clean up after the failed setup' }).locator('pre').waitFor();
    await checkScreen(admin, 'integration-cleanup', 'Integration: the cleanup script after a failed setup');

    // A drifted integration: a DBA drops the group the setup created; the next check finds it.
    const drifted = payloads(uid()).ClusterWarehouse as { config: Record<string, string> };
    const driftedId = await createEnabledIntegration(drifted);
    useLocalCloudEnv();
    const { runOnSandbox, parseRenderedScript } = await import('../../shared/platforms/sandbox/run-script');
    await runOnSandbox(
      'ClusterWarehouse',
      drifted.config.host as string,
      parseRenderedScript('DROP GROUP "service_system";'),
    );
    const { integrationsCommand } = await import('../../infra/cli/integrations');
    await integrationsCommand(['check', String(driftedId)]);
    await at(admin, `#/integrations/${driftedId}`);
    const check = admin.getByRole('region', { name: 'Periodic check' });
    await check.getByRole('table', { name: 'Findings' }).waitFor();
    await check.getByRole('button', { name: 'Generate repair' }).click();
    await check.locator('pre').waitFor();
    await checkScreen(
      admin,
      'integration-check',
      'Integration: the last check, its findings and the repair script',
    );
    await admin.close();
  });

  it('every webhook and history screen, as a user', { timeout: SCREEN_TOUR_TIMEOUT_MS }, async () => {
    const user = await createKey(`a11y-${uid()}`);
    const page = await signedIn(browser, user.apiKey);
    await page.getByLabel('Name *').waitFor();
    await checkScreen(page, 'webhooks-empty', 'Webhooks (none yet) and the new-webhook form');
    await page.getByLabel('Name *').fill('a11y receiver');
    await page.getByLabel('URL *').fill(`${receiver.origin}/hook`);
    await page.getByLabel('addedToProject', { exact: true }).check();
    await page.getByRole('button', { name: 'Create webhook' }).click();
    await page.getByRole('link', { name: 'a11y receiver' }).waitFor();
    await checkScreen(page, 'webhooks', 'Webhooks');

    useLocalCloudEnv();
    const { publishNotification } = await import('../../shared/notifications/publisher');
    await publishNotification({
      notificationType: 'addedToProject',
      text: 'accessibility',
      recipients: [user.userId],
    } as Parameters<typeof publishNotification>[0]);
    const count = async () =>
      (await call('GET', '/webhooks/history', { key: user.apiKey })).body.count as number;
    expect(await eventually(count, (n) => n >= 1, 30_000)).toBe(1);

    await page.getByRole('link', { name: 'a11y receiver' }).click();
    await page.getByRole('heading', { name: 'a11y receiver' }).waitFor();
    await page.getByRole('heading', { name: 'Health' }).waitFor();
    await checkScreen(page, 'webhook-detail', 'Webhook detail: status, health, actions and its own log');
    await page.getByRole('button', { name: 'Edit', exact: true }).click();
    await page.getByLabel('Name', { exact: true }).waitFor();
    await checkScreen(page, 'webhook-edit', 'Webhook: edit');
    await page.getByRole('button', { name: 'Cancel' }).click();
    await page.getByRole('button', { name: 'Rotate secret' }).click();
    const rotate = page.getByRole('dialog', { name: 'Rotate the signing secret?' });
    await rotate.waitFor();
    await checkScreen(page, 'webhook-rotate-confirm', 'Webhook: confirm the secret rotation');
    await rotate.getByRole('button', { name: 'Rotate secret' }).click();
    await page.getByRole('region', { name: 'New signing secret' }).waitFor();
    await checkScreen(page, 'webhook-rotated', 'Webhook: the new secret, shown once');
    await page.getByRole('button', { name: 'I have stored it' }).click();
    await page.getByRole('button', { name: 'Count deliveries' }).click();
    await page.locator('[data-dry-run]').waitFor();
    await checkScreen(page, 'webhook-recover', 'Webhook: recover, the dry-run count');

    await at(page, '#/catalogue');
    await page.getByRole('heading', { name: /Activity/ }).waitFor();
    await checkScreen(page, 'event-catalogue', 'Event catalogue');

    await at(page, '#/history');
    await page.locator('table tbody button').first().waitFor();
    await checkScreen(page, 'history', 'Delivery history');
    await page.locator('table tbody button').first().click();
    await page.getByRole('complementary').waitFor();
    await checkScreen(page, 'history-drawer', 'Delivery history: a record');
    await page.close();
  });

  it('an ordered webhook with parked keys, as its owner', async () => {
    const user = await createKey(`a11y-keys-${uid()}`);
    const id = await createOrderedWebhook(user.apiKey, 'a11y ordered receiver', `${receiver.origin}/ordered`);
    await parkKeys(
      id,
      [
        [1, 'tenant/1'],
        [2, 'tenant/2'],
      ],
      'a11y key',
    );
    const page = await signedIn(browser, user.apiKey);
    await at(page, `#/webhooks/${id}`);
    const section = page.getByRole('region', { name: 'Parked keys' });
    await section.getByRole('table', { name: 'Parked keys' }).waitFor();
    await checkScreen(page, 'webhook-parked-keys', 'Webhook: the parked keys of an ordered webhook');
    await section.getByRole('button', { name: 'Skip head of key tenant/2' }).click();
    const skip = page.getByRole('dialog', { name: 'Skip the head of key “tenant/2”?' });
    await skip.waitFor();
    await checkScreen(page, 'webhook-skip-key-confirm', "Webhook: confirm skipping a parked key's head");
    await skip.getByRole('button', { name: 'Cancel' }).click();
    await page.close();
  });
});

describe('keyboard only', () => {
  it('sign in, move between sections, create a webhook, delete it through the dialog', async () => {
    const user = await createKey(`keyboard-${uid()}`);
    const page = await newPage(browser);
    await page.goto(`${baseUrl()}/console/`);
    await page.getByLabel('API key').waitFor();
    await page.keyboard.press('Tab');
    expect(await page.evaluate<string | undefined>('document.activeElement?.id')).toBe('api-key');
    await page.keyboard.type(user.apiKey);
    await page.keyboard.press('Enter');
    await page.getByRole('button', { name: 'Sign out' }).waitFor();

    // The section links come first after the page starts, in order.
    await page.keyboard.press('Tab');
    expect(await page.evaluate<string | undefined>('document.activeElement?.textContent')).toBe('Webhooks');
    await page.keyboard.press('Tab');
    expect(await page.evaluate<string | undefined>('document.activeElement?.textContent')).toBe(
      'Delivery history',
    );
    await page.keyboard.press('Enter');
    await page.waitForURL(/#\/history$/);
    await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('Enter');
    await page.waitForURL(/#\/webhooks$/);

    // The form's fields in reading order, typed into and ticked with the keyboard.
    await page.getByLabel('Name *').focus();
    await page.keyboard.type('typed receiver');
    // "Deliver to" is one stop (a radio group), on its checked choice: an HTTPS URL.
    await page.keyboard.press('Tab');
    expect(await page.evaluate<string | undefined>('document.activeElement?.value')).toBe('url');
    await page.keyboard.press('Tab');
    expect(await page.evaluate<string | undefined>('document.activeElement?.id')).toBe('wh-url');
    await page.keyboard.type('https://example.com/typed');
    await page.getByLabel('addedToProject', { exact: true }).focus();
    await page.keyboard.press('Space');
    expect(await page.getByLabel('addedToProject', { exact: true }).isChecked()).toBe(true);
    await page.getByRole('button', { name: 'Create webhook' }).focus();
    await page.keyboard.press('Enter');
    const link = page.getByRole('link', { name: 'typed receiver' });
    await link.waitFor();

    await link.focus();
    await page.keyboard.press('Enter');
    const remove = page.getByRole('button', { name: 'Delete webhook' });
    await remove.focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    // Focus is inside the dialog on Cancel; Tab reaches the destructive button.
    expect(await page.evaluate<string | undefined>('document.activeElement?.textContent')).toBe('Cancel');
    await page.keyboard.press('Tab');
    expect(await page.evaluate<string | undefined>('document.activeElement?.textContent')).toBe(
      'Delete webhook',
    );
    await page.keyboard.press('Enter');
    await page.waitForURL(/#\/webhooks$/);
    await expect.poll(() => page.getByRole('link', { name: 'typed receiver' }).count()).toBe(0);
    await page.close();
  });

  it('a new integration: choose the type, dry run, reach the first field in error', async () => {
    const page = await signedIn(browser, adminKey());
    await at(page, '#/integrations/new');
    const type = page.getByLabel('Platform type');
    await type.focus();
    await page.keyboard.press('ArrowDown');
    await expect.poll(() => type.inputValue()).toBe('AnalyticsWarehouse');
    await page.getByRole('button', { name: 'Dry run', exact: true }).focus();
    await page.keyboard.press('Enter');
    const invalid = page.locator('[aria-invalid="true"]').first();
    await invalid.waitFor();
    const id = await invalid.getAttribute('id');
    await page.getByLabel('Platform type').focus();
    // Tabbing forward from the type reaches the field in error without a pointer.
    for (let i = 0; i < 40; i++) {
      await page.keyboard.press('Tab');
      if ((await page.evaluate<string | undefined>('document.activeElement?.id')) === id) break;
    }
    expect(await page.evaluate<string | undefined>('document.activeElement?.id')).toBe(id);
    await page.close();
  });
});
