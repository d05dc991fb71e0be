/**
 * An ObjectStore integration's data sources in the console (issue 38, item 6), in Chromium against
 * the local cloud: the page lists them, adds one (a refusal shown beside the field it names: a path
 * outside the location, one that does not exist), and deletes one after a confirmation. Another
 * type's page has no such section.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { folder, objectStore, registered, uid } from '../integration/data-sources/helpers';
import { adminKey, baseUrl } from '../support/api';
import { closePages, createEnabledIntegration, launchBrowser, signedIn } from '../support/browser';
import { payloads } from '../unit/integrations/fixtures';

let browser: Browser;

beforeAll(async () => {
  browser = await launchBrowser();
});

afterAll(async () => {
  await closePages(browser);
});

describe('data sources on the integration page', () => {
  it('lists, adds with refusals beside their field, and deletes after a confirmation', async () => {
    const os = await objectStore();
    const existing = `listed-${uid()}`;
    await registered(os, existing, await folder(os));
    const page = await signedIn(browser, adminKey());
    await page.goto(`${baseUrl()}/console/#/integrations/${os.id}`);
    const section = page.getByRole('region', { name: 'Data sources' });
    await section.getByRole('cell', { name: existing, exact: true }).waitFor();

    const name = `added-${uid()}`;
    const prefix = section.getByLabel('Prefix, bucket or object (s3://bucket/prefix/)');
    await section.getByLabel('Name').fill(name);
    await prefix.fill(`s3://${os.bucket}/elsewhere/`);
    await section.getByRole('button', { name: 'Add data source' }).click();
    await expect.poll(() => prefix.getAttribute('aria-invalid')).toBe('true');
    expect(await section.locator('#dataSourcePrefix-error').textContent()).toBe(
      `s3://${os.bucket}/elsewhere/ is not inside the integration's cloudLocationPath ${os.location}`,
    );

    await prefix.fill(`s3://${os.bucket}/data/missing/`);
    await section.getByRole('button', { name: 'Add data source' }).click();
    await expect
      .poll(() => section.locator('#dataSourcePrefix-error').textContent())
      .toMatch(/does not exist in the integration's storage/);

    const there = await folder(os);
    await prefix.fill(there);
    await section.getByRole('button', { name: 'Add data source' }).click();
    await section.getByRole('cell', { name, exact: true }).waitFor();
    expect(await section.getByRole('cell', { name: there, exact: true }).count()).toBe(1);
    expect(await prefix.inputValue()).toBe('');

    await section.getByRole('button', { name: `Delete data source ${name}` }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete data source' }).click();
    await expect.poll(() => section.getByRole('cell', { name, exact: true }).count()).toBe(0);
    expect(await section.getByRole('cell', { name: existing, exact: true }).count()).toBe(1);
  });

  it('is not shown for a type that takes no data sources', async () => {
    const id = await createEnabledIntegration(payloads().Lakehouse);
    const page = await signedIn(browser, adminKey());
    await page.goto(`${baseUrl()}/console/#/integrations/${id}`);
    await page.getByRole('heading', { name: 'Configuration' }).waitFor();
    expect(await page.getByRole('region', { name: 'Data sources' }).count()).toBe(0);
  });
});
