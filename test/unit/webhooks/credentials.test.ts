/**
 * A webhook's signing credential changes (ADR 0018) and the `v1a` signature itself, verified with
 * an Ed25519 implementation other than node:crypto (@noble/ed25519).
 */
import * as ed from '@noble/ed25519';
import { describe, expect, it } from 'vitest';
import { ConflictError } from '../../../shared/errors';
import { jwkOf } from '../../../shared/webhooks/api/keys';
import { keySetOf, type NewCredential, replaceCredential } from '../../../shared/webhooks/credentials';
import type { WebhookItem } from '../../../shared/webhooks/model';
import { generateSigningKey, secretProblem, webhookHeaders } from '../../../shared/webhooks/pipeline/signing';

const NOW = Date.parse('2026-11-26T12:00:00Z');
const LATER = '2026-11-27T12:00:00.000Z';
const base: WebhookItem = {
  id: 7,
  name: 'w',
  url: 'https://example.com/h',
  global: false,
  notificationType: ['modelUserAdded'],
  actionType: 'triggered',
  createdBy: 1,
  createdAt: '2026-11-26T00:00:00Z',
  updatedAt: '2026-11-26T00:00:00Z',
};
const key = (n: number): NewCredential => ({
  scheme: 'v1a',
  sealedKey: `sealed-key-${n}`,
  publicKey: `whpk_${n}`,
});
const hmac = (n: number): NewCredential => ({ scheme: 'v1', sealedSecret: `sealed-secret-${n}` });

describe('signing credential changes', () => {
  it('a first key pair: v1a, a key set id, nothing previous', () => {
    const next = replaceCredential(base, key(1), LATER, NOW);
    expect(next).toMatchObject({ signatureScheme: 'v1a', signingKey: 'sealed-key-1', publicKey: 'whpk_1' });
    expect(next.keySetId).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(next.previousSecretExpiresAt).toBeUndefined();
    expect(keySetOf(next)?.keys).toEqual([{ publicKey: 'whpk_1' }]);
  });

  it('rotating a key keeps the old one until the window ends, and the key set id', () => {
    const first = replaceCredential(base, key(1), LATER, NOW);
    const second = replaceCredential(first, key(2), LATER, NOW);
    expect(second).toMatchObject({
      signingKey: 'sealed-key-2',
      publicKey: 'whpk_2',
      previousSigningKey: 'sealed-key-1',
      previousPublicKey: 'whpk_1',
      previousSecretExpiresAt: LATER,
      keySetId: first.keySetId,
    });
    expect(keySetOf(second)?.keys).toEqual([{ publicKey: 'whpk_2' }, { publicKey: 'whpk_1', until: LATER }]);
    // A third rotation inside the window drops the oldest (two live at most).
    const third = replaceCredential(second, key(3), LATER, NOW);
    expect(third).toMatchObject({ previousSigningKey: 'sealed-key-2', previousPublicKey: 'whpk_2' });
  });

  it('v1 → v1a keeps the HMAC secret signing; v1a → v1 keeps the key signing and in the key set', () => {
    const hmacHook = { ...base, secret: 'sealed-secret-0' };
    const switched = replaceCredential(hmacHook, key(1), LATER, NOW);
    expect(switched).toMatchObject({ signatureScheme: 'v1a', previousSecret: 'sealed-secret-0' });
    expect(switched.secret).toBeUndefined();
    const back = replaceCredential(
      { ...switched, previousSecretExpiresAt: '2026-11-26T11:00:00Z' },
      hmac(1),
      LATER,
      NOW,
    );
    expect(back).toMatchObject({
      secret: 'sealed-secret-1',
      previousSigningKey: 'sealed-key-1',
      previousPublicKey: 'whpk_1',
      keySetId: switched.keySetId,
    });
    expect(back.signatureScheme).toBeUndefined();
    expect(back.signingKey).toBeUndefined();
    expect(back.previousSecret).toBeUndefined();
    expect(keySetOf(back)?.keys).toEqual([{ publicKey: 'whpk_1', until: LATER }]);
  });

  it('refuses another change while a switch’s window runs, in either direction', () => {
    const switched = replaceCredential({ ...base, secret: 's' }, key(1), LATER, NOW);
    expect(() => replaceCredential(switched, key(2), LATER, NOW)).toThrow(ConflictError);
    expect(() => replaceCredential(switched, hmac(2), LATER, NOW)).toThrow(/v1 secret keeps signing until/);
    const expired = { ...switched, previousSecretExpiresAt: '2026-11-26T11:00:00Z' };
    const back = replaceCredential(expired, hmac(2), LATER, NOW);
    expect(() => replaceCredential(back, hmac(3), LATER, NOW)).toThrow(/v1a key keeps signing until/);
  });

  it('an unsigned webhook switches with nothing to overlap', () => {
    const next = replaceCredential(base, key(1), LATER, NOW);
    expect(replaceCredential(next, hmac(1), LATER, NOW)).toMatchObject({ secret: 'sealed-secret-1' });
  });
});

describe('v1a signatures', () => {
  it('verify with @noble/ed25519 over "id.timestamp.body", and not when tampered with', async () => {
    const { secretKey, publicKey } = generateSigningKey();
    expect(secretKey).toMatch(/^whsk_[A-Za-z0-9+/]{43}=$/);
    expect(publicKey).toMatch(/^whpk_[A-Za-z0-9+/]{43}=$/);
    // The public key is the seed's, as the Standard Webhooks libraries derive it.
    const seed = new Uint8Array(Buffer.from(secretKey.slice(5), 'base64'));
    const pub = new Uint8Array(Buffer.from(publicKey.slice(5), 'base64'));
    expect(Buffer.from(await ed.getPublicKeyAsync(seed))).toEqual(Buffer.from(pub));

    const body = '{"hello":"world"}';
    const headers = webhookHeaders(
      'msg_1',
      body,
      [{ scheme: 'v1a', secretKey }],
      new Date(1_700_000_000_000),
    );
    expect(headers['webhook-timestamp']).toBe('1700000000');
    const [version, signature] = (headers['webhook-signature'] as string).split(',');
    expect(version).toBe('v1a');
    const sig = new Uint8Array(Buffer.from(signature as string, 'base64'));
    const content = (b: string, ts = '1700000000', id = 'msg_1') =>
      new TextEncoder().encode(`${id}.${ts}.${b}`);
    expect(await ed.verifyAsync(sig, content(body), pub)).toBe(true);
    expect(await ed.verifyAsync(sig, content('{"hello":"World"}'), pub)).toBe(false);
    expect(await ed.verifyAsync(sig, content(body, '1700000001'), pub)).toBe(false);
    expect(await ed.verifyAsync(sig, content(body, '1700000000', 'msg_2'), pub)).toBe(false);
    // The signature of the seed's own pair, as noble makes it (Ed25519 is deterministic).
    expect(Buffer.from(await ed.signAsync(content(body), seed)).toString('base64')).toBe(signature);
  });

  it('signs with every live credential, newest first, HMAC and Ed25519 side by side', () => {
    const { secretKey } = generateSigningKey();
    const header = webhookHeaders('m', 'b', [{ scheme: 'v1a', secretKey }, 'whsec_MDEyMzQ1Njc4OWFiY2RlZg=='])[
      'webhook-signature'
    ];
    expect(header?.split(' ').map((s) => s.split(',')[0])).toEqual(['v1a', 'v1']);
  });

  it('publishes a key as an RFC 8037 JWK with an RFC 7638 thumbprint, and refuses whsk_/whpk_ as HMAC secrets', () => {
    // RFC 8037 appendix A.1 / A.3: the example key and its thumbprint.
    const x = '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo';
    const jwk = jwkOf(`whpk_${Buffer.from(x, 'base64url').toString('base64')}`);
    expect(jwk).toEqual({
      kty: 'OKP',
      crv: 'Ed25519',
      x,
      kid: 'kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k',
      use: 'sig',
      alg: 'EdDSA',
    });
    expect(secretProblem(`whsk_${Buffer.alloc(32).toString('base64')}`)).toMatch(/signatureScheme "v1a"/);
    expect(secretProblem(`whpk_${Buffer.alloc(32).toString('base64')}`)).toMatch(/not an HMAC secret/);
  });
});
