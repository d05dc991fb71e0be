import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { LocalKeyProvider, SecretBox } from '../../../shared/crypto/envelope';

const provider = new LocalKeyProvider(randomBytes(32));

describe('envelope encryption', () => {
  it('round-trips and never stores the plaintext', async () => {
    const box = new SecretBox('test', () => provider);
    const ciphertext = await box.encrypt('p@ss w0rd');
    expect(SecretBox.isCiphertext(ciphertext)).toBe(true);
    expect(ciphertext).not.toContain('p@ss');
    expect(await box.decrypt(ciphertext)).toBe('p@ss w0rd');
  });

  it('uses a fresh IV for every value', async () => {
    const box = new SecretBox('test', () => provider);
    expect(await box.encrypt('same')).not.toBe(await box.encrypt('same'));
  });

  it('binds the purpose: another purpose cannot decrypt', async () => {
    const a = new SecretBox('integration-config', () => provider);
    const b = new SecretBox('webhook-secret', () => provider);
    await expect(b.decrypt(await a.encrypt('x'))).rejects.toThrow();
  });

  it('detects tampering', async () => {
    const box = new SecretBox('test', () => provider);
    const ciphertext = await box.encrypt('value');
    const [prefix, wrapped, sealed] = [ciphertext.slice(0, 7), ...ciphertext.slice(7).split(':')] as [
      string,
      string,
      string,
    ];
    const bytes = Buffer.from(sealed, 'base64');
    bytes[bytes.length - 1] = (bytes[bytes.length - 1] ?? 0) ^ 1;
    await expect(box.decrypt(`${prefix}${wrapped}:${bytes.toString('base64')}`)).rejects.toThrow();
  });

  it('cannot decrypt with another master key', async () => {
    const ciphertext = await new SecretBox('test', () => provider).encrypt('value');
    const other = new SecretBox('test', () => new LocalKeyProvider(randomBytes(32)));
    await expect(other.decrypt(ciphertext)).rejects.toThrow();
  });
});
