/**
 * Asymmetric signatures (`v1a`, ADR 0018) from the console, in real Chromium against the tier's
 * local cloud: creating a v1a webhook (no secret field, none sent), the detail page's scheme,
 * public key and JWKS URL, rotating a key (the new public key shown, never a secret), switching
 * the scheme in the edit form both ways (a switch to v1 shows its generated secret once), and
 * the History drawer's masked signature header. Deliveries go to a loopback receiver this file
 * runs and are verified as a receiver would: node:crypto for v1a, standardwebhooks for v1.
 */
import { createPublicKey, verify } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { Webhook as Verifier } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseUrl, call, createKey, untilDone } from '../support/api';
import { closePages, launchBrowser, signedIn as signedInWith } from '../support/browser';
import { type LoopbackServer, type ReceivedRequest, startLoopback } from '../support/loopback';

let browser: Browser;
let receiver: LoopbackServer;
const received: ReceivedRequest[] = [];

beforeAll(async () => {
  browser = await launchBrowser();
  receiver = await startLoopback(async (req) => {
    received.push(req);
    return { status: 200, body: 'ok' };
  });
});

afterAll(async () => {
  await closePages(browser);
  await receiver?.close();
});

let paths = 0;
const newPath = (label: string) => `/${label}-${++paths}-${Date.now()}`;
const at = (path: string) => received.filter((r) => r.url.pathname === path);

const signedIn = (key: string): Promise<Page> => signedInWith(browser, key);

async function createHook(key: string, path: string, extra: Record<string, unknown> = {}): Promise<number> {
  const created = await call('POST', '/webhooks', {
    key,
    body: {
      webhooks: [
        {
          name: path.slice(1),
          url: `${receiver.origin}${path}`,
          global: false,
          actionType: 'receive',
          notificationType: ['queryCreated'],
          ...extra,
        },
      ],
    },
  });
  expect(created.status, created.text).toBe(201);
  return created.body.createdWebhooks[0].id as number;
}

// biome-ignore lint/suspicious/noExplicitAny: views are asserted field by field
const viewOf = async (key: string, id: number): Promise<Record<string, any>> =>
  (await call('GET', `/webhooks/${id}`, { key })).body;

const openDetail = async (page: Page, id: number) => {
  await page.goto(`${baseUrl()}/console/#/webhooks/${id}`);
  await page.getByRole('heading', { name: 'Health' }).waitFor();
};

const toast = (page: Page) => page.locator('.toasts');
const poll = <T>(probe: () => Promise<T>) => expect.poll(probe, { timeout: 60_000 });
const localTime = (page: Page, iso: string) => page.evaluate((at) => new Date(at).toLocaleString(), iso);

const headersOf = (r: ReceivedRequest) =>
  Object.fromEntries(Object.entries(r.headers).map(([k, v]) => [k, String(v)]));

/** Whether a `v1a` signature of the request verifies with the `whpk_` key (node:crypto). */
function v1aVerifies(publicKey: string, r: ReceivedRequest): boolean {
  const key = createPublicKey({
    key: {
      kty: 'OKP',
      crv: 'Ed25519',
      x: Buffer.from(publicKey.slice(5), 'base64').toString('base64url'),
    },
    format: 'jwk',
  });
  const h = headersOf(r);
  const content = Buffer.from(`${h['webhook-id']}.${h['webhook-timestamp']}.${r.body}`);
  return (h['webhook-signature'] ?? '')
    .split(' ')
    .filter((s) => s.startsWith('v1a,'))
    .some((s) => verify(null, content, key, Buffer.from(s.slice(4), 'base64')));
}

/** Clicks Send test and answers what the receiver got. */
async function sendTest(page: Page, path: string): Promise<ReceivedRequest> {
  const before = at(path).length;
  await page.getByRole('button', { name: 'Send test' }).click();
  const got = await untilDone(
    async () => at(path),
    (r) => r.length === before + 1,
    { what: 'the test send' },
  );
  return got[before] as ReceivedRequest;
}

describe('v1a signatures in the console', () => {
  it('create v1a: the secret field goes and none is sent; the page shows scheme, public key and JWKS URL; a test send verifies with the shown key', async () => {
    const user = await createKey('v1a-create');
    const path = newPath('v1a-created');
    const page = await signedIn(user.apiKey);
    await page.getByLabel('Name *').fill('v1a receiver');
    await page.getByLabel('URL *').fill(`${receiver.origin}${path}`);
    // A secret typed first is dropped when v1a is chosen (the API refuses one beside v1a).
    await page
      .getByLabel('Signing secret (optional, shown never again)')
      .fill('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw');
    const scheme = page.getByRole('group', { name: 'Signature scheme' });
    expect(await scheme.getByLabel('v1 (HMAC-SHA256, default)').isChecked()).toBe(true);
    await scheme.getByLabel('v1a (Ed25519)').check();
    expect(await page.getByLabel('Signing secret (optional, shown never again)').count()).toBe(0);
    expect(await scheme.textContent()).toContain('no secret is entered');
    await page.getByLabel('queryCreated', { exact: true }).check();
    const posted = page.waitForRequest(
      (r) => r.method() === 'POST' && new URL(r.url()).pathname === '/webhooks',
    );
    await page.getByRole('button', { name: 'Create webhook' }).click();
    const entry = (await posted).postDataJSON().webhooks[0];
    expect(entry.signatureScheme).toBe('v1a');
    expect(entry).not.toHaveProperty('secret');
    await poll(() => toast(page).textContent()).toContain('Webhook “v1a receiver” created');

    await page.getByRole('link', { name: 'v1a receiver' }).click();
    await page.getByRole('heading', { name: 'Health' }).waitFor();
    const id = Number(new URL(page.url()).hash.split('/').pop());
    const webhook = await viewOf(user.apiKey, id);
    expect(webhook.signatureScheme).toBe('v1a');
    expect(await page.locator('dd[data-scheme]').textContent()).toBe('v1a (Ed25519)');
    expect((await page.locator('dd [data-public-key]').textContent())?.trim()).toBe(webhook.publicKey);
    await page.getByRole('button', { name: 'Copy the public key' }).waitFor();
    const link = page.getByRole('link', { name: webhook.jwksUrl });
    expect(await link.getAttribute('href')).toBe(webhook.jwksUrl);
    const set = await call('GET', (webhook.jwksUrl as string).slice(baseUrl().length), { key: null });
    expect(set.status, set.text).toBe(200);
    expect(set.body.keys).toHaveLength(1);
    // The rotate action is the key's, not a secret's.
    await page.getByRole('heading', { name: 'Signing key' }).waitFor();
    expect(await page.getByRole('button', { name: 'Rotate secret' }).count()).toBe(0);

    const delivery = await sendTest(page, path);
    expect(headersOf(delivery)['webhook-signature']).toMatch(/^v1a,[A-Za-z0-9+/=]+$/);
    expect(v1aVerifies(webhook.publicKey, delivery)).toBe(true);

    // The History drawer names both forms: a record does not say which scheme signed it.
    await page.goto(`${baseUrl()}/console/#/history`);
    await page.locator('table tbody button').first().click();
    const drawer = page.getByRole('complementary');
    const text = (await drawer.textContent()) ?? '';
    expect(text).toContain('webhook-signature: v1,•••••••• or v1a,••••••••');
    expect(text).toContain('(masked');
    await page.close();
  });

  it('rotating a v1a webhook shows the new public key, never a secret', async () => {
    const user = await createKey('v1a-rotate');
    const id = await createHook(user.apiKey, newPath('v1a-rotated'), { signatureScheme: 'v1a' });
    const before = (await viewOf(user.apiKey, id)).publicKey as string;
    const page = await signedIn(user.apiKey);
    await openDetail(page, id);
    await page.getByRole('button', { name: 'Rotate key' }).click();
    const dialog = page.getByRole('dialog', { name: 'Rotate the signing key?' });
    await dialog.getByRole('button', { name: 'Rotate key' }).click();
    const shown = page.getByRole('region', { name: 'New public key' });
    const key = ((await shown.locator('[data-public-key]').textContent()) ?? '').trim();
    const after = await viewOf(user.apiKey, id);
    expect(key).toBe(after.publicKey);
    expect(key).not.toBe(before);
    expect(await shown.textContent()).toContain(
      `keeps signing until ${await localTime(page, after.previousSecretExpiresAt)}`,
    );
    expect(await page.getByRole('region', { name: 'New signing secret' }).count()).toBe(0);
    expect(await page.locator('[data-secret]').count()).toBe(0);
    // The page, read again, shows the new key and the previous one's end.
    await poll(() => page.locator('dd [data-public-key]').textContent()).toBe(key);
    await page.getByText('Previous secret or key').waitFor();
    await shown.getByRole('button', { name: 'Dismiss' }).click();
    expect(await page.getByRole('region', { name: 'New public key' }).count()).toBe(0);
    await page.close();
  });

  it('switching v1a → v1 in the edit form: PATCH names the scheme, the generated secret is shown once, deliveries carry both signatures', async () => {
    const user = await createKey('v1a-to-v1');
    const path = newPath('v1a-to-v1');
    const id = await createHook(user.apiKey, path, { signatureScheme: 'v1a' });
    const oldKey = (await viewOf(user.apiKey, id)).publicKey as string;
    const page = await signedIn(user.apiKey);
    await openDetail(page, id);
    await page.getByRole('button', { name: 'Edit', exact: true }).click();
    const scheme = page.getByRole('group', { name: 'Signature scheme' });
    expect(await scheme.getByLabel('v1a (Ed25519)').isChecked()).toBe(true);
    expect(await scheme.textContent()).toContain('both signatures are sent');
    await scheme.getByLabel('v1 (HMAC-SHA256, default)').check();
    const patched = page.waitForRequest((r) => r.method() === 'PATCH');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    expect((await patched).postDataJSON()).toEqual({ signatureScheme: 'v1' });
    await poll(() => toast(page).textContent()).toContain('Webhook saved.');

    const shown = page.getByRole('region', { name: 'New signing secret' });
    const secret = ((await shown.locator('[data-secret]').textContent()) ?? '').trim();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/=]+$/);
    const webhook = await viewOf(user.apiKey, id);
    expect(webhook.signatureScheme).toBe('v1');
    expect(webhook.publicKey).toBeUndefined();
    expect(webhook.jwksUrl).toBeTruthy();
    expect(await shown.textContent()).toContain(
      `keeps signing until ${await localTime(page, webhook.previousSecretExpiresAt)}`,
    );
    await poll(() => page.locator('dd[data-scheme]').textContent()).toBe('v1 (HMAC-SHA256, default)');
    expect(await page.locator('dd [data-public-key]').count()).toBe(0);
    await page.getByRole('link', { name: webhook.jwksUrl }).waitFor();
    await page.getByRole('heading', { name: 'Signing secret' }).waitFor();

    const delivery = await sendTest(page, path);
    expect(() => new Verifier(secret).verify(delivery.body, headersOf(delivery))).not.toThrow();
    // Inside the switch's window (15 s on this tier) the old key signs too.
    const sentAt = Number(headersOf(delivery)['webhook-timestamp']) * 1000;
    if (sentAt < Date.parse(webhook.previousSecretExpiresAt) - 1000) {
      expect(headersOf(delivery)['webhook-signature']).toMatch(/^v1,\S+ v1a,\S+$/);
      expect(v1aVerifies(oldKey, delivery)).toBe(true);
    }

    // Shown once: gone when dismissed, and never in the API's answers.
    await shown.getByRole('button', { name: 'I have stored it' }).click();
    expect(await page.getByText(secret).count()).toBe(0);
    expect(JSON.stringify(await viewOf(user.apiKey, id))).not.toContain(secret);
    await page.close();
  });

  it('switching v1 → v1a in the edit form shows the new public key on the page and no secret', async () => {
    const user = await createKey('v1-to-v1a');
    const id = await createHook(user.apiKey, newPath('v1-to-v1a'), {
      secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    });
    const page = await signedIn(user.apiKey);
    await openDetail(page, id);
    expect(await page.locator('dd[data-scheme]').textContent()).toBe('v1 (HMAC-SHA256, default)');
    expect(await page.getByRole('link', { name: /webhook-keys/ }).count()).toBe(0);
    await page.getByRole('button', { name: 'Edit', exact: true }).click();
    await page.getByRole('group', { name: 'Signature scheme' }).getByLabel('v1a (Ed25519)').check();
    const patched = page.waitForRequest((r) => r.method() === 'PATCH');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    expect((await patched).postDataJSON()).toEqual({ signatureScheme: 'v1a' });
    await poll(() => toast(page).textContent()).toContain('Webhook saved.');
    await poll(() => page.locator('dd[data-scheme]').textContent()).toBe('v1a (Ed25519)');
    const webhook = await viewOf(user.apiKey, id);
    expect((await page.locator('dd [data-public-key]').textContent())?.trim()).toBe(webhook.publicKey);
    await page.getByRole('link', { name: webhook.jwksUrl }).waitFor();
    expect(await page.getByRole('region', { name: 'New signing secret' }).count()).toBe(0);
    expect(await page.locator('[data-secret]').count()).toBe(0);
    await page.close();
  });
});
