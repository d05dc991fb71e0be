/**
 * Standard Webhooks signatures (https://www.standardwebhooks.com): the receiver gets
 * `webhook-id`, `webhook-timestamp` (Unix seconds) and `webhook-signature: v1,<base64 of
 * HMAC-SHA256(key, "<id>.<timestamp>.<body>")>`. A secret written `whsec_<base64>` is used as
 * the decoded key (the form the npm `standardwebhooks` verifier expects); any other string is
 * used as its raw UTF-8 bytes.
 */
import { createHmac, randomBytes } from 'node:crypto';

const SECRET_PREFIX = 'whsec_';

function signingKey(secret: string): Buffer {
  if (secret.startsWith(SECRET_PREFIX)) return Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
  return Buffer.from(secret, 'utf8');
}

/** The shortest usable key: 16 characters, or 16 decoded bytes after `whsec_`. */
const MIN_SECRET_LENGTH = 16;

/** Why a secret is too weak or malformed to sign with, or undefined when it is usable. */
export function secretProblem(secret: string): string | undefined {
  if (secret.startsWith(SECRET_PREFIX)) {
    return isValidSecret(secret)
      ? undefined
      : `secret starting with ${SECRET_PREFIX} must be followed by the base64 of a ${MIN_SECRET_LENGTH} to 64 byte key`;
  }
  return isValidSecret(secret) ? undefined : `secret must be at least ${MIN_SECRET_LENGTH} characters long`;
}

/** Whether a secret is usable: `whsec_` + base64 of 16–64 bytes, or any other string of ≥ 16 characters. */
export function isValidSecret(secret: string): boolean {
  if (!secret.startsWith(SECRET_PREFIX)) return Array.from(secret).length >= MIN_SECRET_LENGTH;
  const encoded = secret.slice(SECRET_PREFIX.length);
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded) || encoded.length % 4 !== 0) return false;
  const key = Buffer.from(encoded, 'base64');
  return key.length >= MIN_SECRET_LENGTH && key.length <= 64;
}

function sign(secret: string, id: string, timestampSeconds: number, body: string): string {
  const mac = createHmac('sha256', signingKey(secret))
    .update(`${id}.${timestampSeconds}.${body}`)
    .digest('base64');
  return `v1,${mac}`;
}

/**
 * The Standard Webhooks headers for one attempt. `secrets` are the webhook's live secrets,
 * newest first: one during normal operation, two during a rotation's overlap window. The
 * signature header carries one `v1,…` per secret, space-separated (as the specification allows,
 * so a receiver still holding the previous secret keeps verifying); none without a secret.
 */
export function webhookHeaders(
  id: string,
  body: string,
  secrets: string | readonly string[] | undefined,
  now: Date = new Date(),
): Record<string, string> {
  const timestamp = Math.floor(now.getTime() / 1000);
  const headers: Record<string, string> = { 'webhook-id': id, 'webhook-timestamp': String(timestamp) };
  const keys = secrets === undefined ? [] : typeof secrets === 'string' ? [secrets] : secrets;
  if (keys.length > 0) headers['webhook-signature'] = keys.map((s) => sign(s, id, timestamp, body)).join(' ');
  return headers;
}

/** A new secret: `whsec_` and the base64 of 24 random bytes. */
export function generateSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(24).toString('base64')}`;
}
