/** The public half of a PEM private key, as platforms that store key-pair users want it. */
import { createPrivateKey, createPublicKey } from 'node:crypto';

export class UnreadablePrivateKeyError extends Error {
  override name = 'UnreadablePrivateKeyError';
}

/** A PEM private key (new lines may be written as `\n`) → its base64 DER (SPKI) public key. */
export function publicKeyOf(privateKey: string): string {
  try {
    const pem = privateKey.replaceAll('\\n', '\n');
    const key = createPublicKey(createPrivateKey(pem));
    return key.export({ type: 'spki', format: 'der' }).toString('base64');
  } catch {
    throw new UnreadablePrivateKeyError('not a readable PEM private key');
  }
}
