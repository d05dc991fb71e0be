/**
 * An `enc:v1:` value as releases before envelope bindings wrote it: one data key per purpose,
 * the context `{service, purpose}` only (docs/adr/0008). For tests of reading and resealing old
 * state; the service itself can no longer write this format.
 */
import { createCipheriv, randomBytes } from 'node:crypto';
import type { KeyProvider } from '../../shared/crypto/envelope';

export async function legacyCiphertext(
  provider: KeyProvider,
  purpose: string,
  plaintext: string,
): Promise<string> {
  const context = { service: 'causeway', purpose };
  const aad = Buffer.from(JSON.stringify(Object.entries(context).sort(([a], [b]) => a.localeCompare(b))));
  const key = await provider.generateDataKey(context);
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key.plaintext, iv);
  cipher.setAAD(aad);
  const ct = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  const sealed = Buffer.concat([iv, cipher.getAuthTag(), ct]);
  return `enc:v1:${key.wrapped.toString('base64')}:${sealed.toString('base64')}`;
}
