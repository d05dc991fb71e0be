/**
 * `GET /webhook-keys/{keySetId}`: the public keys of a `v1a` webhook as an RFC 7517 JWK set
 * (RFC 8037 `OKP`/`Ed25519` keys, never a private part), for receivers that verify `v1a`
 * signatures (ADR 0018). No API key: the id in the URL is 128 random bits, and the answer holds
 * nothing secret. One GetItem per request.
 */
import { createHash } from 'node:crypto';
import { NotFoundError } from '../../errors';
import { secretOverlapSeconds } from '../config';
import { publicKeyBytes } from '../pipeline/signing';
import { getKeySet } from '../store/key-sets';

/** The longest a receiver is told to cache a key set (it is also never longer than the overlap window). */
const MAX_CACHE_SECONDS = 300;

const KEY_SET_ID = /^[A-Za-z0-9_-]{22}$/;

export interface Jwk {
  kty: 'OKP';
  crv: 'Ed25519';
  x: string;
  kid: string;
  use: 'sig';
  alg: 'EdDSA';
}

/** The JWK of a `whpk_` public key; its `kid` is the RFC 7638 thumbprint. */
export function jwkOf(publicKey: string): Jwk {
  const x = publicKeyBytes(publicKey).toString('base64url');
  // RFC 7638: the required members in lexicographic order, no whitespace.
  const kid = createHash('sha256').update(`{"crv":"Ed25519","kty":"OKP","x":"${x}"}`).digest('base64url');
  return { kty: 'OKP', crv: 'Ed25519', x, kid, use: 'sig', alg: 'EdDSA' };
}

/**
 * The key set's live keys and how long a receiver may cache them: min(300 s, the overlap window),
 * so a cached set never hides a rotation (the replaced key keeps signing for the whole window).
 */
export async function publishedKeys(
  keySetId: string,
  now = Date.now(),
): Promise<{ keys: Jwk[]; maxAgeSeconds: number }> {
  const set = KEY_SET_ID.test(keySetId) ? await getKeySet(keySetId) : undefined;
  if (!set) throw new NotFoundError(`no webhook key set ${keySetId.slice(0, 64)}`);
  const keys = set.keys
    .filter((k) => k.until === undefined || Date.parse(k.until) > now)
    .map((k) => jwkOf(k.publicKey));
  return { keys, maxAgeSeconds: Math.min(MAX_CACHE_SECONDS, secretOverlapSeconds()) };
}
