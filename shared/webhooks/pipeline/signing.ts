/**
 * Standard Webhooks signatures (https://www.standardwebhooks.com): the receiver gets
 * `webhook-id`, `webhook-timestamp` (Unix seconds) and `webhook-signature: v1,<base64 of
 * HMAC-SHA256(key, "<id>.<timestamp>.<body>")>`. A secret written `whsec_<base64>` is used as
 * the decoded key (the form the npm `standardwebhooks` verifier expects); any other string is
 * used as its raw UTF-8 bytes.
 */
import { createHmac } from 'node:crypto';

export const SECRET_PREFIX = 'whsec_';

export function signingKey(secret: string): Buffer {
  if (secret.startsWith(SECRET_PREFIX)) return Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
  return Buffer.from(secret, 'utf8');
}

/** Whether a `whsec_` secret carries a usable key (other secrets are always usable). */
export function isValidSecret(secret: string): boolean {
  if (!secret.startsWith(SECRET_PREFIX)) return secret.length > 0;
  const encoded = secret.slice(SECRET_PREFIX.length);
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded) || encoded.length % 4 !== 0) return false;
  const key = Buffer.from(encoded, 'base64');
  return key.length >= 16 && key.length <= 64;
}

export function sign(secret: string, id: string, timestampSeconds: number, body: string): string {
  const mac = createHmac('sha256', signingKey(secret))
    .update(`${id}.${timestampSeconds}.${body}`)
    .digest('base64');
  return `v1,${mac}`;
}

/** The Standard Webhooks headers for one attempt; the signature only when there is a secret. */
export function webhookHeaders(
  id: string,
  body: string,
  secret: string | undefined,
  now: Date = new Date(),
): Record<string, string> {
  const timestamp = Math.floor(now.getTime() / 1000);
  const headers: Record<string, string> = { 'webhook-id': id, 'webhook-timestamp': String(timestamp) };
  if (secret !== undefined) headers['webhook-signature'] = sign(secret, id, timestamp, body);
  return headers;
}
