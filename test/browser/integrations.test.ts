/**
 * The integration screens in Chromium against the local cloud (issue 25): the new form offers
 * only what the API accepts and marks what it requires, an empty dry run puts "required" beside
 * the first required field, the edit form shows stored secrets as "stored" and locks the fields
 * the OpenAPI document marks non-editable, the list tells integrations apart by host and name,
 * configuration is labelled fields, delete credentials are labelled fields with their problems
 * beside them, a refused script replaces the earlier output, and a failed setup shows its
 * cleanup script.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminKey, baseUrl, call } from '../support/api';
import {
  chooseManualSetup,
  closePages,
  createEnabledIntegration,
  createIntegrationReaching,
  field,
  launchBrowser,
  signedIn,
} from '../support/browser';
import { payloads, uid } from '../unit/integrations/fixtures';

let browser: Browser;
// biome-ignore lint/suspicious/noExplicitAny: the served OpenAPI document, read as data
let openapi: any;

beforeAll(async () => {
  browser = await launchBrowser();
  openapi = await (await fetch(`${baseUrl()}/openapi.json`)).json();
});

afterAll(async () => {
  await closePages(browser);
});

/** The document's variant of the create body for `type`. */
// biome-ignore lint/suspicious/noExplicitAny: JSON Schema as data
function typeSchema(type: string): any {
  const { $ref } = openapi.paths['/integrations'].post.requestBody.content['application/json'].schema;
  const body = openapi.components.schemas[$ref.split('/').pop()];
  // biome-ignore lint/suspicious/noExplicitAny: JSON Schema as data
  return body.oneOf.find((alt: any) => alt.properties.type.const === type);
}

/** Whether the field's label marks it required. */
const markedRequired = async (page: Page, path: string) =>
  (await page.locator(`label[for="${path}"] abbr[title="required"]`).count()) === 1;

/** Every input's current value on the page. */
const inputValues = (page: Page) =>
  page.evaluate<string[]>(`[...document.querySelectorAll('input, textarea')].map((i) => i.value)`);

describe('integration screens', () => {
  it('the new form never defaults to what the API refuses, and marks what automatic setup needs', async () => {
    const page = await signedIn(browser, adminKey());
    await page.goto(`${baseUrl()}/console/#/integrations/new`);
    const automatic = page.getByLabel('Set up the remote automatically (autoBootstrap)');
    await automatic.waitFor();
    // The first type is ObjectStore, which the document says has no automatic setup.
    expect(await page.getByLabel('Platform type').inputValue()).toBe('ObjectStore');
    expect(typeSchema('ObjectStore')['x-automatic-setup']).toBe(false);
    expect(await automatic.isChecked()).toBe(false);
    expect(await automatic.isDisabled()).toBe(true);

    await page.getByLabel('Platform type').selectOption('ClusterWarehouse');
    await expect.poll(() => automatic.isChecked()).toBe(true);
    expect(typeSchema('ClusterWarehouse')['x-required-when-automatic']).toEqual(['initialDatabase']);
    expect(await markedRequired(page, 'config.initialDatabase')).toBe(true);
    expect(await field(page, 'config.initialDatabase').getAttribute('aria-required')).toBe('true');
    await automatic.uncheck();
    await expect.poll(() => markedRequired(page, 'config.initialDatabase')).toBe(false);
    await page.close();
  });

  it('an empty dry run puts "required" beside the first required field', async () => {
    const page = await signedIn(browser, adminKey());
    await page.goto(`${baseUrl()}/console/#/integrations/new`);
    await page.getByLabel('Platform type').waitFor();
    const first = typeSchema('ObjectStore').properties.config.oneOf[0].required[0];
    expect(first).toBe('name');
    await page.getByRole('button', { name: 'Dry run', exact: true }).click();
    const name = field(page, `config.${first}`);
    await expect.poll(() => name.getAttribute('aria-invalid')).toBe('true');
    const described = await name.getAttribute('aria-describedby');
    expect(await page.locator(`[id="${described}"]`).textContent()).toBe('required');
    expect(await page.locator('main').textContent()).not.toContain('received undefined');
    await page.close();
  });

  it('list, detail and edit: host and name columns, labelled config, "stored" secrets, fields locked by the document', async () => {
    const body = payloads(uid()).AnalyticsWarehouse as { config: Record<string, string> };
    const id = await createEnabledIntegration(body);
    const page = await signedIn(browser, adminKey());
    await page.goto(`${baseUrl()}/console/#/integrations`);
    const row = page
      .getByRole('row')
      .filter({ has: page.getByRole('link', { name: `#${id}`, exact: true }) });
    await expect.poll(() => row.textContent()).toContain(body.config.host);
    const headers = await page.getByRole('columnheader').allTextContents();
    const cells = await row.getByRole('cell').allTextContents();
    expect(cells[headers.indexOf('Host')]).toBe(body.config.host);
    expect(cells[headers.indexOf('Name')]).toBe(body.config.database);

    await page.getByRole('link', { name: `#${id}`, exact: true }).click();
    const config = page.getByRole('definition').first();
    await config.waitFor();
    const configText = await page.locator('dl.config').first().textContent();
    expect(configText).toContain(body.config.host);
    expect(configText).toContain('stored');
    expect(await page.locator('main').textContent()).not.toContain('[REDACTED]');
    expect(await page.locator('pre.config').count()).toBe(0);

    await page.getByRole('button', { name: 'Edit', exact: true }).click();
    const username = field(page, 'config.username');
    await username.waitFor();
    expect(await username.inputValue()).toBe('');
    expect(await username.getAttribute('placeholder')).toBe('stored');
    expect(await field(page, 'config.password').getAttribute('placeholder')).toBe('stored');
    expect(await inputValues(page)).not.toContain('[REDACTED]');
    // Locked exactly where the document says the type may not change, before any refusal.
    const locked: string[] = typeSchema('AnalyticsWarehouse')['x-non-editable'];
    expect(locked).toEqual(['host', 'database', 'schema']);
    for (const name of locked) expect(await field(page, `config.${name}`).isDisabled(), name).toBe(true);
    expect(await username.isDisabled()).toBe(false);
    // connectArgs is part of where the service connects: a change to it with the secrets left
    // "stored" is refused, naming them beside their fields; typed again, the save goes through.
    await field(page, 'config.connectArgs').fill('encrypt=true');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await expect
      .poll(() => page.locator('.action-error').textContent())
      .toContain('config.username, config.password: sent as the redaction placeholder');
    expect(await username.getAttribute('aria-invalid')).toBe('true');
    expect(await field(page, 'config.password').getAttribute('aria-invalid')).toBe('true');
    await username.fill(body.config.username as string);
    await field(page, 'config.password').fill(body.config.password as string);
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await expect
      .poll(async () => (await call('GET', `/integrations/${id}`)).body.config?.connectArgs, {
        timeout: 30_000,
      })
      .toBe('encrypt=true');
    await page.close();
  });

  it('delete: labelled credential fields, a missing one named beside it, Cancel keeps the integration', async () => {
    const id = await createEnabledIntegration(payloads(uid()).AnalyticsWarehouse);
    const page = await signedIn(browser, adminKey());
    await page.goto(`${baseUrl()}/console/#/integrations/${id}`);
    const credentials = page.getByRole('group', { name: 'Privileged credentials for the teardown' });
    await credentials.waitFor();
    expect(await credentials.getByLabel('username').count()).toBe(1);
    expect(await credentials.getByLabel('password').count()).toBe(1);
    expect(await page.locator('textarea#credentials').count()).toBe(0);

    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
    expect((await call('GET', `/integrations/${id}`)).body.status).toBe('enabled');

    await field(page, 'credentials.username').fill(`adm-${uid()}`);
    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete integration' }).click();
    const password = field(page, 'credentials.password');
    await expect.poll(() => password.getAttribute('aria-invalid')).toBe('true');
    const described = await password.getAttribute('aria-describedby');
    expect(await page.locator(`[id="${described}"]`).textContent()).toMatch(/^required/);
    expect((await call('GET', `/integrations/${id}`)).body.status).toBe('enabled');
    await page.close();
  });

  it('a refused script replaces the earlier output instead of sitting under the new error', async () => {
    const payload = payloads(uid()).CloudWarehouse as { config: Record<string, string> };
    const page = await signedIn(browser, adminKey());
    await page.goto(`${baseUrl()}/console/#/integrations/new`);
    await chooseManualSetup(page, 'CloudWarehouse');
    for (const [name, value] of Object.entries(payload.config)) {
      if (name === 'role' || name === 'authenticationType') continue;
      await field(page, `config.${name}`).fill(value);
    }
    const generate = page.getByRole('button', { name: 'Generate 1. initial-create' });
    const step = page.getByRole('listitem').filter({ has: generate });
    await generate.click();
    await expect.poll(() => step.locator('figure.script pre').count()).toBe(1);
    await field(page, 'config.host').fill('');
    await generate.click();
    await expect.poll(() => step.locator('.action-error').count()).toBe(1);
    expect(await step.locator('.action-error').textContent()).toContain('config.host');
    expect(await step.locator('figure.script').count()).toBe(0);
    await page.close();
  });

  it('a failed setup shows its cleanup script', async () => {
    const body = payloads(uid()).ClusterWarehouse as { config: Record<string, string> };
    body.config.password = 'fail-compensation';
    const id = await createIntegrationReaching(body, 'createError');
    const page = await signedIn(browser, adminKey());
    await page.goto(`${baseUrl()}/console/#/integrations/${id}`);
    const cleanup = page.getByRole('region', { name: 'Clean up after the failed setup' });
    await cleanup.waitFor();
    const script = cleanup.locator('figure.script pre');
    await expect.poll(() => script.count(), { timeout: 20_000 }).toBe(1);
    const expected = await call('POST', `/integrations/${id}/scripts/cleanup`);
    expect(expected.status).toBe(200);
    expect(await script.textContent()).toBe(expected.body.script);
    await page.close();
  });
});
