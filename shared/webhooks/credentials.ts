/**
 * A webhook's signing credential and its changes (ADR 0018): an HMAC secret (`v1`, or none) or an
 * Ed25519 key pair (`v1a`). Rotation and scheme switches replace the current credential and keep
 * the replaced one signing until the overlap window ends, so every delivery in the window carries
 * both signatures and no receiver breaks mid-change.
 *
 * At most two credentials sign at a time. A second rotation inside the window drops the oldest
 * one, as HMAC rotation always did; but while the previous credential is of the *other* kind (a
 * switch is in its window), changing the credential again is refused: dropping it would leave the
 * receivers that still verify that kind with nothing to verify.
 *
 * New key material is made and sealed before the change is computed (sealing is asynchronous and
 * a change may be recomputed after a lost race), so these functions are synchronous and pure.
 */
import { randomBytes } from 'node:crypto';
import { ConflictError } from '../errors';
import type { SignatureScheme, WebhookItem } from './model';
import { generateSigningKey } from './pipeline/signing';
import { sealWebhookSecret, sealWebhookSigningKey } from './secrets';

/** A new credential, sealed for its webhook. */
export type NewCredential =
  | { scheme: 'v1'; sealedSecret: string }
  | { scheme: 'v1a'; sealedKey: string; publicKey: string };

export const schemeOf = (item: Pick<WebhookItem, 'signatureScheme'>): SignatureScheme =>
  item.signatureScheme ?? 'v1';

/** A new Ed25519 key pair for webhook `id`, its secret key sealed. */
export async function newKeyPair(id: number): Promise<NewCredential & { scheme: 'v1a' }> {
  const { secretKey, publicKey } = generateSigningKey();
  return { scheme: 'v1a', sealedKey: await sealWebhookSigningKey(id, secretKey), publicKey };
}

/** `secret` sealed for webhook `id`. */
export async function newHmacSecret(id: number, secret: string): Promise<NewCredential & { scheme: 'v1' }> {
  return { scheme: 'v1', sealedSecret: await sealWebhookSecret(id, secret) };
}

/** A key set id: 128 random bits, base64url (the unguessable part of a `jwksUrl`). */
const newKeySetId = (): string => randomBytes(16).toString('base64url');

/** Whether the previous credential is still signing at `now`. */
function previousLive(item: WebhookItem, now: number): boolean {
  return (
    item.previousSecretExpiresAt !== undefined &&
    Date.parse(item.previousSecretExpiresAt) > now &&
    (item.previousSecret !== undefined || item.previousSigningKey !== undefined)
  );
}

/** The webhook without any previous credential. */
function withoutPrevious(item: WebhookItem): WebhookItem {
  const {
    previousSecret: _secret,
    previousSigningKey: _key,
    previousPublicKey: _public,
    previousSecretExpiresAt: _until,
    ...rest
  } = item;
  return rest;
}

/**
 * The webhook signed by `fresh` from now on; its current credential (if any) keeps signing until
 * `overlapEnds`. A 409 while a scheme switch's overlap window is running.
 */
export function replaceCredential(
  current: WebhookItem,
  fresh: NewCredential,
  overlapEnds: string,
  now = Date.now(),
): WebhookItem {
  const scheme = schemeOf(current);
  if (previousLive(current, now)) {
    const previousScheme: SignatureScheme = current.previousSigningKey !== undefined ? 'v1a' : 'v1';
    if (previousScheme !== scheme) {
      throw new ConflictError(
        `webhook ${current.id} switched its signatureScheme to ${scheme}, and its ${previousScheme} ${previousScheme === 'v1a' ? 'key' : 'secret'} keeps signing until ${current.previousSecretExpiresAt}: change the signing credential again after that, so receivers that still verify ${previousScheme} signatures are not left without one`,
      );
    }
  }
  const { signatureScheme: _scheme, secret, signingKey, publicKey, ...rest } = withoutPrevious(current);
  const next: WebhookItem = { ...rest };
  // The current credential becomes the previous one.
  if (scheme === 'v1a' && signingKey !== undefined) {
    next.previousSigningKey = signingKey;
    if (publicKey !== undefined) next.previousPublicKey = publicKey;
    next.previousSecretExpiresAt = overlapEnds;
  } else if (scheme === 'v1' && secret !== undefined) {
    next.previousSecret = secret;
    next.previousSecretExpiresAt = overlapEnds;
  }
  if (fresh.scheme === 'v1') return { ...next, secret: fresh.sealedSecret };
  return {
    ...next,
    signatureScheme: 'v1a',
    signingKey: fresh.sealedKey,
    publicKey: fresh.publicKey,
    keySetId: current.keySetId ?? newKeySetId(),
  };
}

/** The public keys a webhook's key set lists, with when each stops signing (absent: the current key). */
export interface KeySetItem {
  keySetId: string;
  webhookId: number;
  keys: { publicKey: string; until?: string }[];
}

/** The key set of a webhook as stored (undefined for a webhook that never had a key pair). */
export function keySetOf(item: WebhookItem): KeySetItem | undefined {
  if (item.keySetId === undefined) return undefined;
  const keys: KeySetItem['keys'] = [];
  if (item.signatureScheme === 'v1a' && item.publicKey !== undefined)
    keys.push({ publicKey: item.publicKey });
  if (item.previousPublicKey !== undefined && item.previousSecretExpiresAt !== undefined) {
    keys.push({ publicKey: item.previousPublicKey, until: item.previousSecretExpiresAt });
  }
  return { keySetId: item.keySetId, webhookId: item.id, keys };
}
