/**
 * AWS destinations (issue 40, ADR 0019) from the console, in real Chromium against the tier's
 * local cloud and its sandbox AWS account: the create form's choice between a URL and an SQS
 * queue, the trust the caller's role needs shown beside the queue's fields (as GET
 * /webhooks/aws-trust answers it), a queue webhook created, listed and shown, a test send that
 * arrives in the queue, an EventBridge bus with its source (the hint naming `events:PutEvents`),
 * a role that does not trust the caller's ExternalId refused in the form, and the edit form
 * switching the webhook back to a URL.
 */

import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { sandboxAwsCommand } from '../../infra/cli/sandbox-aws';
import { call, createKey, untilDone } from '../support/api';
import { closePages, launchBrowser, signedIn as signedInWith } from '../support/browser';

const endpoints = inject('endpoints');
const stateDir = inject('stateDir');
const aws = async (...args: string[]) =>
  (await sandboxAwsCommand(args, endpoints.sandboxAccount, join(stateDir, 'sandbox'))).map((l) =>
    JSON.parse(l),
  );

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await closePages(browser);
});

const run = Date.now().toString(36);
const toast = (page: Page) => page.locator('.toasts');
const poll = <T>(probe: () => Promise<T>) => expect.poll(probe, { timeout: 60_000 });

describe('AWS destinations in the console', () => {
  it('creates an SQS webhook with the trust shown beside its fields, lists it, and its test send reaches the queue', async () => {
    const user = await createKey('destination-console');
    const trust = (await call('GET', '/webhooks/aws-trust', { key: user.apiKey })).body;
    const [{ roleArn }] = await aws(
      'create-role',
      '--name',
      `console-${run}`,
      '--external-id',
      trust.externalId,
    );
    const [{ queueUrl }] = await aws('create-queue', '--name', `console-${run}`);
    const page = await signedInWith(browser, user.apiKey);
    await page.getByLabel('Name *').fill('queue receiver');
    const target = page.getByRole('group', { name: 'Deliver to' });
    expect(await target.getByLabel('an HTTPS URL').isChecked()).toBe(true);
    await target.getByLabel('an Amazon SQS queue in your AWS account').check();
    expect(await page.getByLabel('URL *', { exact: true }).count()).toBe(0);
    const panel = page.getByRole('region', { name: 'The role the service assumes' });
    await poll(() => panel.textContent()).toContain(trust.externalId);
    const text = (await panel.textContent()) ?? '';
    expect(text).toContain(trust.principalArn);
    expect(text).toContain('"sts:ExternalId"');
    await panel.getByRole('button', { name: 'Copy the trust policy' }).waitFor();
    await page.getByLabel('Queue URL *').fill(queueUrl);
    await page.getByLabel('Role ARN *').fill(roleArn);
    await page.getByLabel('queryCreated', { exact: true }).check();
    const posted = page.waitForRequest(
      (r) => r.method() === 'POST' && new URL(r.url()).pathname === '/webhooks',
    );
    await page.getByRole('button', { name: 'Create webhook' }).click();
    const entry = (await posted).postDataJSON().webhooks[0];
    expect(entry).toMatchObject({ destination: { type: 'sqs', queueUrl, roleArn } });
    expect(entry).not.toHaveProperty('url');
    await poll(() => toast(page).textContent()).toContain('Webhook “queue receiver” created');
    await poll(() => page.locator('td.url').allTextContents()).toContain(queueUrl);

    await page.getByRole('link', { name: 'queue receiver' }).click();
    await page.getByRole('heading', { name: 'Health' }).waitFor();
    const details = (await page.locator('dl').first().textContent()) ?? '';
    expect(details).toContain(queueUrl);
    expect(details).toContain(roleArn);
    await page.getByRole('button', { name: 'Send test' }).click();
    const messages = await untilDone(
      () => aws('receive', '--queue', `console-${run}`, '--wait', '1'),
      (m) => m.length > 0,
      { what: 'the test send in the queue' },
    );
    expect(messages[0].attributes['webhook-id']).toBeTruthy();
    expect(JSON.parse(messages[0].body).metadata).toMatchObject({
      notificationType: 'queryCreated',
      test: true,
    });

    // Back to a URL from the edit form: the queue fields give way to the URL's.
    await page.getByRole('button', { name: 'Edit', exact: true }).click();
    const editTarget = page.getByRole('group', { name: 'Deliver to' });
    expect(await editTarget.getByLabel('an Amazon SQS queue in your AWS account').isChecked()).toBe(true);
    expect(await page.getByLabel('Queue URL', { exact: true }).inputValue()).toBe(queueUrl);
    await editTarget.getByLabel('an HTTPS URL').check();
    await page.getByLabel('URL', { exact: true }).fill(`https://hooks.example.com/${run}`);
    await page.getByRole('button', { name: 'Save' }).click();
    await poll(() => toast(page).textContent()).toContain('Webhook saved.');
    const id = Number(new URL(page.url()).hash.split('/').pop());
    const view = (await call('GET', `/webhooks/${id}`, { key: user.apiKey })).body;
    expect(view.url).toBe(`https://hooks.example.com/${run}`);
    expect(view).not.toHaveProperty('destination');
    await page.close();
  });

  it('creates an EventBridge webhook with its source and detail type, the hint naming events:PutEvents', async () => {
    const user = await createKey('destination-bus');
    const trust = (await call('GET', '/webhooks/aws-trust', { key: user.apiKey })).body;
    const [{ roleArn }] = await aws('create-role', '--name', `bus-${run}`, '--external-id', trust.externalId);
    await aws('create-queue', '--name', `bus-${run}`);
    const [{ eventBusArn }] = await aws('create-bus', '--name', `bus-${run}`, '--queue', `bus-${run}`);
    const page = await signedInWith(browser, user.apiKey);
    await page.getByLabel('Name *').fill('bus receiver');
    await page
      .getByRole('group', { name: 'Deliver to' })
      .getByLabel('an Amazon EventBridge event bus in your AWS account')
      .check();
    expect(await page.getByLabel('Queue URL *').count()).toBe(0);
    const panel = page.getByRole('region', { name: 'The role the service assumes' });
    await poll(() => panel.textContent()).toContain('events:PutEvents');
    await page.getByLabel('Event bus ARN *').fill(eventBusArn);
    await page.getByLabel('Role ARN *').fill(roleArn);
    await page.getByLabel('Event source (optional)').fill('com.example.console');
    await page.getByLabel('queryCreated', { exact: true }).check();
    const posted = page.waitForRequest(
      (r) => r.method() === 'POST' && new URL(r.url()).pathname === '/webhooks',
    );
    await page.getByRole('button', { name: 'Create webhook' }).click();
    // An empty detail type is left out (the default: the notification type).
    expect((await posted).postDataJSON().webhooks[0].destination).toEqual({
      type: 'eventbridge',
      eventBusArn,
      roleArn,
      source: 'com.example.console',
    });
    await poll(() => toast(page).textContent()).toContain('Webhook “bus receiver” created');
    await poll(() => page.locator('td.url').allTextContents()).toContain(eventBusArn);
    await page.getByRole('link', { name: 'bus receiver' }).click();
    await page.getByRole('heading', { name: 'Health' }).waitFor();
    const details = (await page.locator('dl').first().textContent()) ?? '';
    expect(details).toContain(eventBusArn);
    expect(details).toContain('com.example.console');
    await page.close();
  });

  it('shows the refusal when the role does not trust the caller’s ExternalId', async () => {
    const user = await createKey('destination-refused');
    const [{ roleArn }] = await aws(
      'create-role',
      '--name',
      `not-mine-${run}`,
      '--external-id',
      'someone-elses-id',
    );
    const [{ queueUrl }] = await aws('create-queue', '--name', `refused-${run}`);
    const page = await signedInWith(browser, user.apiKey);
    await page.getByLabel('Name *').fill('refused queue');
    await page
      .getByRole('group', { name: 'Deliver to' })
      .getByLabel('an Amazon SQS queue in your AWS account')
      .check();
    await page.getByLabel('Queue URL *').fill(queueUrl);
    await page.getByLabel('Role ARN *').fill(roleArn);
    await page.getByLabel('queryCreated', { exact: true }).check();
    await page.getByRole('button', { name: 'Create webhook' }).click();
    await poll(() => page.getByRole('alert').first().textContent()).toMatch(/AssumeRole|ExternalId/);
    expect((await call('GET', '/webhooks', { key: user.apiKey })).body).toEqual([]);
    await page.close();
  });
});
