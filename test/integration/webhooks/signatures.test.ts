/**
 * Asymmetric signatures (`v1a`, Ed25519; ADR 0018) through the local cloud, verified as a
 * receiver would: with `@noble/ed25519` (not node:crypto) and with the published JWK set read by
 * `jose`. The integration tier's overlap window is 5 s (WEBHOOK_SECRET_OVERLAP_SECONDS in
 * test/support/global-setup.ts), so the ends of windows are waited out here.
 */
import type { webcrypto } from 'node:crypto';
import * as ed from '@noble/ed25519';
import { createLocalJWKSet, importJWK, type JWK } from 'jose';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { baseUrl, call, createKey } from '../../support/api';
import { allHistory, publish, untilCount } from './helpers';
import { type Received, type Receiver, startReceiver } from './receiver';

const X = 'modelUserAdded';
const whsec = (byte: number) => `whsec_${Buffer.alloc(24, byte).toString('base64')}`;

const signedContent = (r: Received, body = r.body, timestamp = r.headers['webhook-timestamp']) =>
  new TextEncoder().encode(`${r.headers['webhook-id']}.${timestamp}.${body}`);

const signatures = (r: Received, version: 'v1' | 'v1a') =>
  (r.headers['webhook-signature'] ?? '')
    .split(' ')
    .filter((s) => s.startsWith(`${version},`))
    .map((s) => Buffer.from(s.slice(version.length + 1), 'base64'));

const keyBytes = (publicKey: string) =>
  new Uint8Array(Buffer.from(publicKey.replace(/^whpk_/, ''), 'base64'));

/** Whether any `v1a` signature of the request verifies with this public key (@noble/ed25519). */
async function nobleVerifies(publicKey: string | Uint8Array, r: Received, content = signedContent(r)) {
  const key = typeof publicKey === 'string' ? keyBytes(publicKey) : publicKey;
  for (const signature of signatures(r, 'v1a')) {
    if (await ed.verifyAsync(new Uint8Array(signature), content, key)) return true;
  }
  return false;
}

/** Whether the HMAC secret verifies the request (the Standard Webhooks library, `v1` only). */
function hmacVerifies(secret: string, r: Received): boolean {
  try {
    new StandardWebhook(secret).verify(r.body, r.headers);
    return true;
  } catch {
    return false;
  }
}

async function jwks(url: string) {
  const path = url.slice(baseUrl().length);
  return call<{ keys: JWK[] }>('GET', path, { key: null });
}

describe('v1a signatures, the published keys and switching schemes', () => {
  let receiver: Receiver;
  let owner: { userId: number; apiKey: string };

  beforeAll(async () => {
    receiver = await startReceiver();
  });
  // Test sends count against the owner's manual send limit: one owner per test.
  beforeEach(async () => {
    owner = await createKey('signatures-owner');
  });
  afterAll(async () => {
    await receiver.close();
  });

  const hook = (name: string, extra: Record<string, unknown> = {}) => ({
    name,
    url: receiver.url(`/${name}`),
    global: false,
    notificationType: [X],
    actionType: 'triggered',
    ...extra,
  });
  const create = async (name: string, extra: Record<string, unknown> = {}) => {
    const created = await call('POST', '/webhooks', {
      key: owner.apiKey,
      body: { webhooks: [hook(name, extra)] },
    });
    expect(created.status, created.text).toBe(201);
    return created.body.createdWebhooks[0];
  };
  const testSend = async (id: number, path: string) => {
    const before = receiver.byPath(path).length;
    const sent = await call('POST', `/webhooks/${id}/test`, { key: owner.apiKey });
    expect(sent.status, sent.text).toBe(201);
    await untilCount(() => receiver.byPath(path).length, before + 1, 'the test send');
    return receiver.byPath(path)[before] as Received;
  };
  const windowEnd = async (until: string) =>
    new Promise((r) => setTimeout(r, Math.max(0, Date.parse(until) - Date.now()) + 1100));

  it('signs v1a: verifies with @noble/ed25519 and with the JWK set read by jose; tampering fails', async () => {
    const webhook = await create('v1a-basic', { signatureScheme: 'v1a' });
    expect(webhook.signatureScheme).toBe('v1a');
    expect(webhook.publicKey).toMatch(/^whpk_[A-Za-z0-9+/]{43}=$/);
    expect(keyBytes(webhook.publicKey)).toHaveLength(32);
    expect(webhook.jwksUrl).toMatch(new RegExp(`^${baseUrl()}/webhook-keys/[A-Za-z0-9_-]{22}$`));
    // The id in the URL is the key set's own, never the webhook's number.
    expect(new URL(webhook.jwksUrl).pathname.split('/').pop()).not.toBe(String(webhook.id));
    const shown = await call('GET', `/webhooks/${webhook.id}`, { key: owner.apiKey });
    expect(shown.body).toMatchObject({
      signatureScheme: 'v1a',
      publicKey: webhook.publicKey,
      jwksUrl: webhook.jwksUrl,
    });
    const listed = await call<Record<string, unknown>[]>('GET', '/webhooks', { key: owner.apiKey });
    expect(listed.body.find((w) => w.id === webhook.id)).toMatchObject({ publicKey: webhook.publicKey });
    for (const text of [shown.text, listed.text]) expect(text).not.toMatch(/whsk_|signingKey|"secret"/);

    // The published keys: no API key, cacheable, RFC 8037, never a private part.
    const set = await jwks(webhook.jwksUrl);
    expect(set.status, set.text).toBe(200);
    expect(set.headers.get('cache-control')).toBe('public, max-age=5');
    expect(set.body.keys).toHaveLength(1);
    const [jwk] = set.body.keys as [JWK];
    expect(jwk).toMatchObject({ kty: 'OKP', crv: 'Ed25519', use: 'sig', alg: 'EdDSA' });
    expect(jwk).not.toHaveProperty('d');
    expect(Buffer.from(jwk.x as string, 'base64url')).toEqual(Buffer.from(keyBytes(webhook.publicKey)));

    const request = await testSend(webhook.id, '/v1a-basic');
    expect(request.headers['webhook-signature']).toMatch(/^v1a,[A-Za-z0-9+/]{86}==$/);
    expect(await nobleVerifies(webhook.publicKey, request)).toBe(true);
    // Through jose: the JWK set as a local key store, the key found by its kid, verified by WebCrypto.
    const getKey = createLocalJWKSet(set.body);
    const viaKid = await getKey({ alg: 'EdDSA', kid: jwk.kid }, { payload: '', signature: '' } as never);
    const imported = (await importJWK(jwk, 'EdDSA')) as webcrypto.CryptoKey;
    for (const key of [viaKid as webcrypto.CryptoKey, imported]) {
      const [signature] = signatures(request, 'v1a');
      expect(await crypto.subtle.verify('Ed25519', key, signature as Buffer, signedContent(request))).toBe(
        true,
      );
    }
    // Tampering: another body, another timestamp, another key.
    expect(await nobleVerifies(webhook.publicKey, request, signedContent(request, `${request.body} `))).toBe(
      false,
    );
    const stale = String(Number(request.headers['webhook-timestamp']) - 1);
    expect(await nobleVerifies(webhook.publicKey, request, signedContent(request, request.body, stale))).toBe(
      false,
    );
    expect(await nobleVerifies(ed.utils.randomSecretKey().slice(0, 32), request)).toBe(false);

    // The pipeline signs the same way, and the history holds no private key.
    await publish({ notificationType: X, text: 'v1a through the pipeline', recipients: [owner.userId] });
    await untilCount(() => receiver.byPath('/v1a-basic').length, 2, 'the pipeline delivery');
    expect(await nobleVerifies(webhook.publicKey, receiver.byPath('/v1a-basic')[1] as Received)).toBe(true);
    // A manual retry re-sends through the same code as recover jobs' re-sends (pipeline/resend.ts).
    const history = await allHistory(owner.apiKey);
    const record = history.find((r) => r.webhooksId === webhook.id) as { id: number; deliveryId: string };
    const retried = await call('POST', `/webhooks/history/retry/${record.id}`, { key: owner.apiKey });
    expect(retried.status, retried.text).toBe(201);
    await untilCount(() => receiver.byPath('/v1a-basic').length, 3, 'the manual retry');
    const resent = receiver.byPath('/v1a-basic')[2] as Received;
    expect(resent.headers['webhook-id']).toBe(record.deliveryId);
    expect(await nobleVerifies(webhook.publicKey, resent)).toBe(true);
    expect(JSON.stringify(await allHistory(owner.apiKey))).not.toMatch(/whsk_/);
  });

  it('rotates a v1a key with both signatures and both published keys inside the window, the new one after', async () => {
    const webhook = await create('v1a-rotated', { signatureScheme: 'v1a' });
    const rotated = await call('POST', `/webhooks/${webhook.id}/secret/rotate`, { key: owner.apiKey });
    expect(rotated.status, rotated.text).toBe(200);
    const fresh = rotated.body.publicKey as string;
    expect(fresh).toMatch(/^whpk_/);
    expect(fresh).not.toBe(webhook.publicKey);
    expect(rotated.body.webhook).toMatchObject({ publicKey: fresh, jwksUrl: webhook.jwksUrl });
    expect(rotated.body.secret).toBeUndefined();
    expect(rotated.text).not.toMatch(/whsk_/);

    const inside = await testSend(webhook.id, '/v1a-rotated');
    expect(signatures(inside, 'v1a')).toHaveLength(2);
    expect(await nobleVerifies(fresh, inside)).toBe(true);
    expect(await nobleVerifies(webhook.publicKey, inside)).toBe(true);
    const both = await jwks(webhook.jwksUrl);
    expect(both.body.keys.map((k) => k.x)).toEqual(
      [fresh, webhook.publicKey].map((k) => Buffer.from(keyBytes(k)).toString('base64url')),
    );

    // A caller's secret is no key: refused, nothing changed.
    const chosen = await call('POST', `/webhooks/${webhook.id}/secret/rotate`, {
      key: owner.apiKey,
      body: { secret: whsec(4) },
    });
    expect(chosen.status).toBe(400);
    expect(chosen.body.message).toMatch(/^body\.secret: .*v1a/);

    await windowEnd(rotated.body.webhook.previousSecretExpiresAt);
    const after = await testSend(webhook.id, '/v1a-rotated');
    expect(signatures(after, 'v1a')).toHaveLength(1);
    expect(await nobleVerifies(fresh, after)).toBe(true);
    expect(await nobleVerifies(webhook.publicKey, after)).toBe(false);
    expect((await jwks(webhook.jwksUrl)).body.keys).toHaveLength(1);
  });

  it('switches v1 → v1a and back with both kinds of signature in each window, and keeps the JWK set URL', async () => {
    const oldSecret = whsec(7);
    const webhook = await create('switched', { secret: oldSecret });
    expect(webhook.signatureScheme).toBe('v1');
    expect(webhook.jwksUrl).toBeUndefined();

    const toV1a = await call('PATCH', `/webhooks/${webhook.id}`, {
      key: owner.apiKey,
      body: { signatureScheme: 'v1a' },
    });
    expect(toV1a.status, toV1a.text).toBe(200);
    expect(toV1a.body).toMatchObject({ signatureScheme: 'v1a' });
    expect(toV1a.body.secret).toBeUndefined();
    const publicKey = toV1a.body.publicKey as string;
    const during = await testSend(webhook.id, '/switched');
    expect(await nobleVerifies(publicKey, during)).toBe(true);
    expect(hmacVerifies(oldSecret, during)).toBe(true);

    // While the switch's window runs, the credential does not change again (the HMAC receivers
    // would be left without a signature).
    for (const change of [
      call('POST', `/webhooks/${webhook.id}/secret/rotate`, { key: owner.apiKey }),
      call('PATCH', `/webhooks/${webhook.id}`, { key: owner.apiKey, body: { signatureScheme: 'v1' } }),
    ]) {
      const refused = await change;
      expect(refused.status, refused.text).toBe(409);
      expect(refused.body.message).toMatch(/v1 secret keeps signing until/);
    }
    // The same scheme again changes no credential.
    const same = await call('PATCH', `/webhooks/${webhook.id}`, {
      key: owner.apiKey,
      body: { signatureScheme: 'v1a' },
    });
    expect(same.status).toBe(200);
    expect(same.body.publicKey).toBe(publicKey);

    await windowEnd(toV1a.body.previousSecretExpiresAt);
    const onlyV1a = await testSend(webhook.id, '/switched');
    expect(signatures(onlyV1a, 'v1')).toHaveLength(0);
    expect(await nobleVerifies(publicKey, onlyV1a)).toBe(true);

    const toV1 = await call('PATCH', `/webhooks/${webhook.id}`, {
      key: owner.apiKey,
      body: { signatureScheme: 'v1' },
    });
    expect(toV1.status, toV1.text).toBe(200);
    const newSecret = toV1.body.secret as string;
    expect(newSecret).toMatch(/^whsec_/);
    expect(toV1.body).toMatchObject({ signatureScheme: 'v1', jwksUrl: toV1a.body.jwksUrl });
    expect(toV1.body.publicKey).toBeUndefined();
    expect(
      JSON.stringify((await call('GET', `/webhooks/${webhook.id}`, { key: owner.apiKey })).body),
    ).not.toContain(newSecret);
    const back = await testSend(webhook.id, '/switched');
    expect(hmacVerifies(newSecret, back)).toBe(true);
    expect(await nobleVerifies(publicKey, back)).toBe(true);
    expect((await jwks(toV1a.body.jwksUrl)).body.keys).toHaveLength(1);

    await windowEnd(toV1.body.previousSecretExpiresAt);
    const onlyV1 = await testSend(webhook.id, '/switched');
    expect(signatures(onlyV1, 'v1a')).toHaveLength(0);
    expect(hmacVerifies(newSecret, onlyV1)).toBe(true);
    const empty = await jwks(toV1a.body.jwksUrl);
    expect(empty.status).toBe(200);
    expect(empty.body.keys).toEqual([]);

    // Deleted with its webhook.
    expect((await call('DELETE', `/webhooks/${webhook.id}`, { key: owner.apiKey })).status).toBe(200);
    const gone = await jwks(toV1a.body.jwksUrl);
    expect(gone.status).toBe(404);
    expect(gone.body).toMatchObject({ statusCode: 404, error: 'Not Found' });
  });

  it('refuses a secret beside v1a, an unknown scheme and a whsk_ key as an HMAC secret; unknown key sets are 404s', async () => {
    const withSecret = await call('POST', '/webhooks', {
      key: owner.apiKey,
      body: { webhooks: [hook('ok-one'), hook('v1a-secret', { signatureScheme: 'v1a', secret: whsec(1) })] },
    });
    expect(withSecret.status).toBe(400);
    expect(withSecret.body.message).toMatch(/^body\.webhooks\[1\]\.secret: /);
    const unknown = await call('POST', '/webhooks', {
      key: owner.apiKey,
      body: { webhooks: [hook('v2', { signatureScheme: 'v2' })] },
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toMatch(/^body\.webhooks\[0\]\.signatureScheme: /);
    // Nothing of either request was created.
    const mine = await call<{ name: string }[]>('GET', '/webhooks', { key: owner.apiKey });
    expect(mine.body.map((w) => w.name)).toEqual([]);

    const webhook = await create('patched-scheme');
    const badPatch = await call('PATCH', `/webhooks/${webhook.id}`, {
      key: owner.apiKey,
      body: { signatureScheme: 'v2' },
    });
    expect(badPatch.status).toBe(400);
    expect(badPatch.body.message).toMatch(/signatureScheme/);
    const whsk = `whsk_${Buffer.alloc(32, 1).toString('base64')}`;
    const asSecret = await call('POST', `/webhooks/${webhook.id}/secret/rotate`, {
      key: owner.apiKey,
      body: { secret: whsk },
    });
    expect(asSecret.status).toBe(400);
    expect(asSecret.body.message).toMatch(/^body\.secret: .*signatureScheme "v1a"/);
    expect(asSecret.text).not.toContain(whsk);

    for (const id of ['AAAAAAAAAAAAAAAAAAAAAA', 'not-a-key-set', `${webhook.id}`]) {
      const missing = await call('GET', `/webhook-keys/${id}`, { key: null });
      expect(missing.status, id).toBe(404);
      expect(missing.body).toMatchObject({ statusCode: 404, error: 'Not Found' });
    }
  });
});
