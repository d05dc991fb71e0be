/**
 * Standard Webhooks signatures (https://www.standardwebhooks.com): the receiver gets
 * `webhook-id`, `webhook-timestamp` (Unix seconds) and `webhook-signature`, a space-separated
 * list of signatures of `"<id>.<timestamp>.<body>"`:
 * - `v1,<base64 of HMAC-SHA256(key, …)>` for an HMAC secret. A secret written `whsec_<base64>` is
 *   used as the decoded key (the form the npm `standardwebhooks` verifier expects); any other
 *   string is used as its raw UTF-8 bytes.
 * - `v1a,<base64 of the Ed25519 signature>` for a key pair (ADR 0018): `whsk_<base64 of the
 *   32-byte seed>` signs, `whpk_<base64 of the 32-byte public key>` verifies.
 */
import {
  createHmac,
  createPrivateKey,
  generateKeyPairSync,
  type KeyObject,
  randomBytes,
  sign,
} from 'node:crypto';

const SECRET_PREFIX = 'whsec_';
const SIGNING_KEY_PREFIX = 'whsk_';
const PUBLIC_KEY_PREFIX = 'whpk_';

function signingKey(secret: string): Buffer {
  if (secret.startsWith(SECRET_PREFIX)) return Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
  return Buffer.from(secret, 'utf8');
}

/** The shortest usable key: 16 characters, or 16 decoded bytes after `whsec_`. */
const MIN_SECRET_LENGTH = 16;

/** Why a secret is too weak or malformed to sign with, or undefined when it is usable. */
export function secretProblem(secret: string): string | undefined {
  if (secret.startsWith(SIGNING_KEY_PREFIX) || secret.startsWith(PUBLIC_KEY_PREFIX)) {
    return `a ${secret.slice(0, 5)} key is not an HMAC secret: send signatureScheme "v1a" instead, and the service makes the webhook's Ed25519 key pair`;
  }
  if (secret.startsWith(SECRET_PREFIX)) {
    return isValidSecret(secret)
      ? undefined
      : `secret starting with ${SECRET_PREFIX} must be followed by the base64 of a ${MIN_SECRET_LENGTH} to 64 byte key`;
  }
  return isValidSecret(secret) ? undefined : `secret must be at least ${MIN_SECRET_LENGTH} characters long`;
}

/** Whether a secret is usable: `whsec_` + base64 of 16–64 bytes, or any other string of ≥ 16 characters. */
export function isValidSecret(secret: string): boolean {
  if (secret.startsWith(SIGNING_KEY_PREFIX) || secret.startsWith(PUBLIC_KEY_PREFIX)) return false;
  if (!secret.startsWith(SECRET_PREFIX)) return Array.from(secret).length >= MIN_SECRET_LENGTH;
  const encoded = secret.slice(SECRET_PREFIX.length);
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded) || encoded.length % 4 !== 0) return false;
  const key = Buffer.from(encoded, 'base64');
  return key.length >= MIN_SECRET_LENGTH && key.length <= 64;
}

/**
 * What signs a request: an HMAC secret (`v1`), or the secret key of an Ed25519 pair written
 * `whsk_…` (`v1a`). A plain string is an HMAC secret.
 */
export type SigningCredential = string | { readonly scheme: 'v1a'; readonly secretKey: string };

/** PKCS #8 DER of an Ed25519 private key is this prefix and the 32-byte seed (RFC 8410). */
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

/** Parsed keys by `whsk_` value: a container signs for a few webhooks many times. */
const privateKeys = new Map<string, KeyObject>();
const MAX_CACHED_KEYS = 256;

function ed25519Key(secretKey: string): KeyObject {
  let key = privateKeys.get(secretKey);
  if (key === undefined) {
    const seed = Buffer.from(secretKey.slice(SIGNING_KEY_PREFIX.length), 'base64');
    if (!secretKey.startsWith(SIGNING_KEY_PREFIX) || seed.length !== 32)
      throw new Error('a v1a signing key must be whsk_ and the base64 of a 32-byte seed');
    key = createPrivateKey({
      key: Buffer.concat([ED25519_PKCS8_PREFIX, seed]),
      format: 'der',
      type: 'pkcs8',
    });
    if (privateKeys.size >= MAX_CACHED_KEYS) privateKeys.delete(privateKeys.keys().next().value as string);
    privateKeys.set(secretKey, key);
  }
  return key;
}

function signWith(credential: SigningCredential, id: string, timestampSeconds: number, body: string): string {
  const content = `${id}.${timestampSeconds}.${body}`;
  if (typeof credential !== 'string') {
    return `v1a,${sign(null, Buffer.from(content, 'utf8'), ed25519Key(credential.secretKey)).toString('base64')}`;
  }
  return `v1,${createHmac('sha256', signingKey(credential)).update(content).digest('base64')}`;
}

/**
 * The Standard Webhooks headers for one attempt. `credentials` are the webhook's live signing
 * credentials, newest first: one during normal operation, two during a rotation's or a scheme
 * switch's overlap window. The signature header carries one signature per credential,
 * space-separated (as the specification allows, so a receiver still holding the previous secret
 * or key keeps verifying); none without a credential.
 */
export function webhookHeaders(
  id: string,
  body: string,
  credentials: SigningCredential | readonly SigningCredential[] | undefined,
  now: Date = new Date(),
): Record<string, string> {
  const timestamp = Math.floor(now.getTime() / 1000);
  const headers: Record<string, string> = { 'webhook-id': id, 'webhook-timestamp': String(timestamp) };
  const all: readonly SigningCredential[] =
    credentials === undefined
      ? []
      : Array.isArray(credentials)
        ? credentials
        : [credentials as SigningCredential];
  if (all.length > 0)
    headers['webhook-signature'] = all.map((c) => signWith(c, id, timestamp, body)).join(' ');
  return headers;
}

/** A new Ed25519 key pair: the secret key `whsk_<base64 seed>` and the public key `whpk_<base64>`. */
export function generateSigningKey(): { secretKey: string; publicKey: string } {
  const jwk = generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' });
  return {
    secretKey: `${SIGNING_KEY_PREFIX}${Buffer.from(jwk.d as string, 'base64url').toString('base64')}`,
    publicKey: `${PUBLIC_KEY_PREFIX}${Buffer.from(jwk.x as string, 'base64url').toString('base64')}`,
  };
}

/** The 32 bytes of a `whpk_` public key. */
export function publicKeyBytes(publicKey: string): Buffer {
  return Buffer.from(publicKey.slice(PUBLIC_KEY_PREFIX.length), 'base64');
}

/** A new secret: `whsec_` and the base64 of 24 random bytes. */
export function generateSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(24).toString('base64')}`;
}
