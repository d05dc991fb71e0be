import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  type KeyProvider,
  LocalKeyProvider,
  SecretBox,
  UnreadableCiphertextError,
} from '../../../shared/crypto/envelope';
import { legacyCiphertext as sealedV1 } from '../../support/legacy-ciphertext';

const provider = new LocalKeyProvider(randomBytes(32));
const legacyCiphertext = (purpose: string, plaintext: string) => sealedV1(provider, purpose, plaintext);

const reasonOf = (promise: Promise<unknown>) =>
  promise.then(
    () => 'opened',
    (error) => (error instanceof UnreadableCiphertextError ? error.reason : String(error)),
  );

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
    expect(ciphertext.startsWith('enc:v2:')).toBe(true);
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

  it('binds the binding: a value opens only with the binding it was sealed with', async () => {
    const box = new SecretBox('test', () => provider);
    const binding = { owner: 'integration-1', field: 'password', connection: 'abc' };
    const ciphertext = await box.encrypt('value', binding);
    expect(await box.decrypt(ciphertext, binding)).toBe('value');
    for (const other of [
      { ...binding, owner: 'integration-2' },
      { ...binding, field: 'username' },
      { ...binding, connection: 'abd' },
      {},
    ])
      expect(await reasonOf(box.decrypt(ciphertext, other)), JSON.stringify(other)).toBe('unopened');
  });

  it('puts the purpose and binding into the key provider context (the KMS encryption context)', async () => {
    const contexts: Record<string, string>[] = [];
    const recording: KeyProvider = {
      generateDataKey(context) {
        contexts.push(context);
        return provider.generateDataKey(context);
      },
      unwrapDataKey(wrapped, context) {
        contexts.push(context);
        return provider.unwrapDataKey(wrapped, context);
      },
    };
    const box = new SecretBox('integration-secret', () => recording);
    const binding = { owner: 'integration-9', field: 'password', connection: 'digest' };
    await box.decrypt(await box.encrypt('v', binding), binding);
    expect(contexts).toEqual([
      { ...binding, service: 'causeway', purpose: 'integration-secret' },
      { ...binding, service: 'causeway', purpose: 'integration-secret' },
    ]);
    await expect(box.encrypt('v', { purpose: 'other' })).rejects.toThrow(/cannot name/);
  });

  it('refuses malformed values by name, without echoing them', async () => {
    const box = new SecretBox('test', () => provider);
    for (const bad of [
      'plain',
      'enc:v2:',
      'enc:v2:%%%:%%%',
      'enc:v2:AAAA',
      'enc:v2:AAAA:AAAA',
      'enc:v2:a:b:c',
    ]) {
      const reason = await reasonOf(box.decrypt(bad));
      expect(reason, bad).toBe('malformed');
    }
    const error = await box.decrypt('enc:v2:AAAA:AAAA').catch((e: Error) => e);
    expect((error as Error).message).not.toContain('AAAA');
  });

  it('opens enc:v1 values only in a box naming their old purpose, under that purpose alone', async () => {
    const v1 = await legacyCiphertext('webhook-secret', 'old secret');
    const reading = new SecretBox('webhook-secret', () => provider, { legacyPurpose: 'webhook-secret' });
    expect(SecretBox.isLegacy(v1)).toBe(true);
    expect(await reading.decrypt(v1)).toBe('old secret');
    // Sealed before bindings existed: whatever the binding, the old context opens it.
    expect(await reading.decrypt(v1, { owner: 'webhook-1' })).toBe('old secret');
    expect(await reasonOf(new SecretBox('webhook-secret', () => provider).decrypt(v1))).toBe('legacy');
    expect(
      await reasonOf(new SecretBox('webhook-secret', () => provider, { legacyPurpose: 'other' }).decrypt(v1)),
    ).toBe('unopened');
    // What a box writes is always bound (v2).
    expect(SecretBox.isLegacy(await reading.encrypt('new', { owner: 'webhook-1' }))).toBe(false);
  });
});
