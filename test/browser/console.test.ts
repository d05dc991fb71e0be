/**
 * The console in real Chromium (Debian's, driven by Playwright) against the local cloud the
 * tier's globalSetup started, which serves the built console at /console/. Each flow signs in
 * with a real API key and goes through the public API only; the drift and manual-script screens
 * are saved under docs/console/ in a screenshot run (the accessibility test saves the others).
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runManualSetup } from '../integration/integrations/helpers';
import { adminKey, baseUrl, call, createKey, eventually, useLocalCloudEnv } from '../support/api';
import {
  chooseManualSetup,
  closePages,
  createEnabledIntegration,
  expectNoHorizontalOverflow,
  field,
  launchBrowser,
  screenshot,
  signedIn as signedInWith,
} from '../support/browser';
import { type LoopbackServer, startLoopback } from '../support/loopback';
import { deleteBodies, type Payload, payloads, uid } from '../unit/integrations/fixtures';

let browser: Browser;
let receiver: LoopbackServer;
const received: string[] = [];

beforeAll(async () => {
  browser = await launchBrowser();
  receiver = await startLoopback((req) => {
    received.push(req.body);
    return { status: 200, body: 'ok' };
  });
});

afterAll(async () => {
  await closePages(browser);
  await receiver?.close();
});

const signedIn = (key: string, width = 1280) => signedInWith(browser, key, width);

describe('the operator console', () => {
  it('a bad key shows the API 401 message and nothing else', async () => {
    const page = await browser.newPage();
    await page.goto(`${baseUrl()}/console/`);
    await page.getByLabel('API key').fill('cw_not_a_real_key');
    await page.getByRole('button', { name: 'Sign in' }).click();
    const unauthorized = await call('GET', '/me', { key: 'cw_not_a_real_key' });
    await expect.poll(() => page.getByRole('alert').textContent()).toContain(unauthorized.body.message);
    expect(await page.getByLabel('API key').isVisible()).toBe(true);
    expect(await page.evaluate<number>('sessionStorage.length')).toBe(0);
    await page.close();
  });

  it('admin: dry run, create, watch it reach enabled, edit, delete with credentials', async () => {
    const id0 = uid();
    const payload = payloads(id0).AnalyticsWarehouse as { config: Record<string, string> };
    const page = await signedIn(adminKey());
    expect(page.url()).not.toContain(adminKey());
    await page.getByRole('link', { name: 'New integration' }).click();
    await page.getByLabel('Platform type').selectOption('AnalyticsWarehouse');
    // The form comes from the type's schema: defaults filled, secrets as password inputs.
    await expect.poll(() => field(page, 'config.port').inputValue()).toBe('1433');
    expect(await field(page, 'config.password').getAttribute('type')).toBe('password');
    for (const [name, value] of Object.entries(payload.config))
      await field(page, `config.${name}`).fill(value);
    await page.getByRole('button', { name: 'Dry run', exact: true }).click();
    await page.getByRole('region', { name: 'Validation results' }).waitFor();
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    await page.waitForURL(/#\/integrations\/\d+$/);
    const id = Number(page.url().split('/').pop());
    await expect
      .poll(() => page.locator('.badge').first().textContent(), { timeout: 20_000 })
      .toBe('enabled');
    expect(await page.locator('dl.config').first().textContent()).not.toContain(payload.config.password);

    await page.getByRole('button', { name: 'Edit', exact: true }).click();
    await field(page, 'config.connectArgs').fill('encrypt=true');
    // A connection change with the stored secrets as placeholders is refused, naming them; the
    // secrets sent again, it goes through.
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await expect
      .poll(() => page.getByRole('alert').textContent())
      .toContain('config.username, config.password: sent as the redaction placeholder');
    await field(page, 'config.username').fill(payload.config.username as string);
    await field(page, 'config.password').fill(payload.config.password as string);
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await expect
      .poll(async () => (await call('GET', `/integrations/${id}`)).body.config?.connectArgs, {
        timeout: 20_000,
      })
      .toBe('encrypt=true');
    await expect
      .poll(() => page.locator('.badge').first().textContent(), { timeout: 20_000 })
      .toBe('enabled');

    const credentials = deleteBodies(id0).AnalyticsWarehouse as Record<string, string>;
    await field(page, 'credentials.username').fill(credentials.username as string);
    await field(page, 'credentials.password').fill(credentials.password as string);
    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete integration' }).click();
    await expect
      .poll(() => page.locator('.badge').first().textContent(), { timeout: 20_000 })
      .toBe('deleted');
    await page.goto(`${baseUrl()}/console/#/integrations`);
    await page.getByRole('table').waitFor();
    await page.close();
  });

  it('a drifted integration: the last check, its findings, the repair script and Repair now (issue 21)', async () => {
    const body = payloads(uid()).ClusterWarehouse as { config: Record<string, string> };
    const id = await createEnabledIntegration(body);
    // Out of band, a DBA drops the group the setup created; the next check finds it.
    useLocalCloudEnv();
    const { runOnSandbox, parseRenderedScript } = await import('../../shared/platforms/sandbox/run-script');
    await runOnSandbox(
      'ClusterWarehouse',
      body.config.host as string,
      parseRenderedScript('DROP GROUP "service_system";'),
    );
    const { integrationsCommand } = await import('../../infra/cli/integrations');
    await integrationsCommand(['check', String(id)]);

    const page = await signedIn(adminKey());
    await page.goto(`${baseUrl()}/console/#/integrations`);
    const row = page.getByRole('row').filter({ has: page.getByRole('link', { name: `#${id}` }) });
    // The group, and the grants and memberships that went with it.
    await expect.poll(() => row.textContent()).toMatch(/\d+ findings?/);
    await page.getByRole('link', { name: `#${id}` }).click();
    const check = page.getByRole('region', { name: 'Periodic check' });
    await expect
      .poll(() => page.locator('.badge').first().textContent())
      .toContain('recurringValidationError');
    const findings = check.getByRole('table', { name: 'Findings' });
    await expect.poll(() => findings.textContent()).toContain('group service_system');
    await check.getByRole('button', { name: 'Generate repair' }).click();
    await expect.poll(() => check.locator('pre').textContent()).toContain('CREATE GROUP "service_system"');
    await screenshot(page, 'integration-drift');
    await check.getByRole('button', { name: 'Repair now' }).click();
    await expect
      .poll(() => page.locator('.badge').first().textContent(), { timeout: 60_000 })
      .toBe('enabled');
    await page.close();
  });

  it('manual flow: generate the scripts, run them on the sandbox, create, see it enabled', async () => {
    const id0 = uid();
    const payload = payloads(id0).CloudWarehouse as Payload;
    const page = await signedIn(adminKey());
    await page.goto(`${baseUrl()}/console/#/integrations/new`);
    await chooseManualSetup(page, 'CloudWarehouse');
    for (const [name, value] of Object.entries(payload.config as Record<string, string>)) {
      if (name === 'role' || name === 'authenticationType') continue;
      await field(page, `config.${name}`).fill(value);
    }
    const scripts = page.locator('figure.script pre');
    // One after the other, as an operator does: a click while the first request is still out
    // (under load) is not the flow under test.
    await page.getByRole('button', { name: 'Generate 1. initial-create' }).click();
    await expect.poll(() => scripts.count()).toBe(1);
    await page.getByRole('button', { name: 'Generate 2. create' }).click();
    await expect.poll(() => scripts.count()).toBe(2);
    await screenshot(page, 'manual-scripts');
    for (const script of await scripts.allTextContents()) expect(script).toMatch(/CREATE|GRANT/i);
    // The operator runs them on the platform: here the sandbox, with the same generated setup.
    payload.autoBootstrap = false;
    delete payload.config.role;
    await runManualSetup(payload);
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    await page.waitForURL(/#\/integrations\/\d+$/);
    await expect
      .poll(() => page.locator('.badge').first().textContent(), { timeout: 20_000 })
      .toBe('enabled');
    await page.close();
  });

  it('webhook with a secret → a delivery → the history row → the drawer → retry → a second row → the chart', async () => {
    const user = await createKey(`console-user-${uid()}`);
    const page = await signedIn(user.apiKey);
    await page.getByLabel('Name *').fill('console receiver');
    await page.getByLabel('URL *').fill(`${receiver.origin}/hook`);
    await page
      .getByLabel('Signing secret (optional, shown never again)')
      .fill('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw');
    await page.getByLabel('addedToProject', { exact: true }).check();
    await page.getByRole('button', { name: 'Create webhook' }).click();
    await page.getByRole('link', { name: 'console receiver' }).waitFor();

    useLocalCloudEnv();
    const { publishNotification } = await import('../../shared/notifications/publisher');
    await publishNotification({
      notificationType: 'addedToProject',
      text: 'from the console test',
      recipients: [user.userId],
    } as Parameters<typeof publishNotification>[0]);
    const historyCount = async () =>
      (await call('GET', '/webhooks/history', { key: user.apiKey })).body.count as number;
    expect(await eventually(historyCount, (n) => n >= 1, 20_000)).toBe(1);
    expect(received.some((body) => body.includes('from the console test'))).toBe(true);

    await page.getByRole('link', { name: 'Delivery history' }).click();
    await expect
      .poll(() => page.getByRole('status').first().textContent(), { timeout: 20_000 })
      .toBe('1 record');
    await page.locator('table tbody button').first().click();
    const drawer = page.getByRole('complementary');
    expect(await drawer.textContent()).toContain('from the console test');
    expect(await drawer.textContent()).toContain('(masked)');
    expect(await drawer.textContent()).not.toContain('whsec_');
    await drawer.getByRole('button', { name: 'Retry', exact: true }).click();
    await drawer.getByText(/Retry sent/).waitFor();
    await drawer.getByRole('button', { name: 'Close' }).click();
    expect(await eventually(historyCount, (n) => n >= 2, 20_000)).toBe(2);
    await page.getByRole('button', { name: 'Refresh' }).click();
    await expect
      .poll(() => page.getByRole('status').first().textContent(), { timeout: 20_000 })
      .toBe('2 records');
    await expect
      .poll(() => page.locator('figure.chart figcaption').textContent(), { timeout: 10_000 })
      .toBe('2 deliveries in the last 24 hours');
    await expectNoHorizontalOverflow(page);
    await page.setViewportSize({ width: 390, height: 844 });
    await expectNoHorizontalOverflow(page);
    await page.close();
  });

  it('non-admin: no Integrations section, only their own webhooks, admin URLs answer 403 from the API', async () => {
    const other = await createKey(`console-other-${uid()}`);
    await call('POST', '/webhooks', {
      key: other.apiKey,
      body: {
        webhooks: [
          {
            name: 'not yours',
            url: 'https://example.com/h',
            global: false,
            actionType: 'receive',
            notificationType: ['addedToProject'],
          },
        ],
      },
    });
    const user = await createKey(`console-plain-${uid()}`);
    const page = await signedIn(user.apiKey, 390);
    expect(await page.getByRole('link', { name: 'Integrations' }).count()).toBe(0);
    expect(await page.getByText('not yours').count()).toBe(0);
    expect(await page.getByLabel('Global (receives every subscribed notification)').count()).toBe(0);
    expect(await page.getByLabel('attributeAdded', { exact: true }).count()).toBe(0); // a system event
    expect(await page.getByLabel('addedToProject', { exact: true }).count()).toBe(1);
    await expectNoHorizontalOverflow(page);
    // The console hides the section; the API still refuses it.
    await page.goto(`${baseUrl()}/console/#/integrations`);
    expect(await page.getByRole('link', { name: 'New integration' }).count()).toBe(0);
    const refused = await page.evaluate<{ status: number; body: { message?: string } }>(
      `fetch('/integrations', { headers: { Authorization: sessionStorage.getItem('causeway.apiKey') } })
        .then(async (r) => ({ status: r.status, body: await r.json() }))`,
    );
    expect(refused.status).toBe(403);
    expect(refused.body.message).toBeTruthy();
    await page.close();
  });

  it('a malformed percent-encoding in the address bar’s hash does not stop rendering (issue 24, finding 9)', async () => {
    const page = await signedIn(adminKey());
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    for (const hash of ['#/integrations/%', '#/webhooks/%E0%A4%A', '#/webhooks/%zz']) {
      await page.evaluate(`window.location.hash = ${JSON.stringify(hash)}`);
      await page.getByRole('navigation', { name: 'Sections' }).waitFor();
      expect(await page.getByRole('button', { name: 'Sign out' }).isVisible(), hash).toBe(true);
    }
    // The console still follows the hash afterwards, without a reload.
    await page.evaluate(`window.location.hash = '#/integrations'`);
    await page.getByRole('link', { name: 'New integration' }).waitFor();
    expect(errors).toEqual([]);
    await page.close();
  });
});
