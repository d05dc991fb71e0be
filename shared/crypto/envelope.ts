/**
 * Envelope encryption for secrets at rest (integration credentials, webhook secrets, transient
 * workflow credentials). Each container asks its key provider for one data key, caches it, and
 * encrypts every secret with AES-256-GCM under it; the wrapped data key travels with the
 * ciphertext. In AWS the provider is KMS (`SECRETS_KMS_KEY_ID`); in the local cloud it is a
 * master key file in the state directory (`LOCAL_MASTER_KEY_FILE`).
 *
 * Ciphertext format: `enc:v1:<wrapped data key, base64>:<iv|tag|ciphertext, base64>`.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { optionalEnv } from '../config/env';

export interface DataKey {
  plaintext: Buffer;
  wrapped: Buffer;
}

export interface KeyProvider {
  generateDataKey(context: Record<string, string>): Promise<DataKey>;
  unwrapDataKey(wrapped: Buffer, context: Record<string, string>): Promise<Buffer>;
}

const PREFIX = 'enc:v1:';

function aad(context: Record<string, string>): Buffer {
  return Buffer.from(JSON.stringify(Object.entries(context).sort(([a], [b]) => a.localeCompare(b))), 'utf8');
}

/** Wraps data keys with a 32-byte master key held in a local file (local cloud only). */
export class LocalKeyProvider implements KeyProvider {
  constructor(private readonly masterKey: Buffer) {
    if (masterKey.length !== 32) throw new Error('the local master key must be 32 bytes');
  }

  static fromFile(path: string): LocalKeyProvider {
    return new LocalKeyProvider(Buffer.from(readFileSync(path, 'utf8').trim(), 'base64'));
  }

  async generateDataKey(context: Record<string, string>): Promise<DataKey> {
    const plaintext = randomBytes(32);
    return { plaintext, wrapped: seal(this.masterKey, plaintext, aad(context)) };
  }

  async unwrapDataKey(wrapped: Buffer, context: Record<string, string>): Promise<Buffer> {
    return open(this.masterKey, wrapped, aad(context));
  }
}

/** KMS-backed provider; the SDK client is loaded only where a function uses secrets. */
export class KmsKeyProvider implements KeyProvider {
  constructor(private readonly keyId: string) {}

  async generateDataKey(context: Record<string, string>): Promise<DataKey> {
    const { KMSClient, GenerateDataKeyCommand } = await import('@aws-sdk/client-kms');
    const out = await kms(KMSClient).send(
      new GenerateDataKeyCommand({ KeyId: this.keyId, KeySpec: 'AES_256', EncryptionContext: context }),
    );
    if (!out.Plaintext || !out.CiphertextBlob) throw new Error('KMS returned no data key');
    return { plaintext: Buffer.from(out.Plaintext), wrapped: Buffer.from(out.CiphertextBlob) };
  }

  async unwrapDataKey(wrapped: Buffer, context: Record<string, string>): Promise<Buffer> {
    const { KMSClient, DecryptCommand } = await import('@aws-sdk/client-kms');
    const out = await kms(KMSClient).send(
      new DecryptCommand({ CiphertextBlob: wrapped, EncryptionContext: context, KeyId: this.keyId }),
    );
    if (!out.Plaintext) throw new Error('KMS returned no plaintext');
    return Buffer.from(out.Plaintext);
  }
}

let kmsClient: InstanceType<typeof import('@aws-sdk/client-kms').KMSClient> | undefined;
function kms(ctor: typeof import('@aws-sdk/client-kms').KMSClient) {
  kmsClient ??= new ctor({});
  return kmsClient;
}

function seal(key: Buffer, plaintext: Buffer, additional: Buffer): Buffer {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(additional);
  const ct = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), ct]);
}

function open(key: Buffer, sealed: Buffer, additional: Buffer): Buffer {
  const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(0, 12));
  decipher.setAAD(additional);
  decipher.setAuthTag(sealed.subarray(12, 28));
  return Buffer.concat([decipher.update(sealed.subarray(28)), decipher.final()]);
}

export function defaultKeyProvider(): KeyProvider {
  const kmsKeyId = optionalEnv('SECRETS_KMS_KEY_ID');
  if (kmsKeyId) return new KmsKeyProvider(kmsKeyId);
  const file = optionalEnv('LOCAL_MASTER_KEY_FILE');
  if (file) return LocalKeyProvider.fromFile(file);
  throw new Error('no key provider: set SECRETS_KMS_KEY_ID (AWS) or LOCAL_MASTER_KEY_FILE (local cloud)');
}

/**
 * Encrypts and decrypts strings. One instance per purpose: the purpose is bound into the
 * encryption context, so a webhook secret cannot be decrypted as an integration credential.
 */
export class SecretBox {
  private dataKey: Promise<DataKey> | undefined;
  private readonly unwrapped = new Map<string, Promise<Buffer>>();
  private readonly context: Record<string, string>;

  constructor(
    purpose: string,
    private readonly provider: () => KeyProvider = defaultKeyProvider,
  ) {
    this.context = { service: 'causeway', purpose };
  }

  static isCiphertext(value: unknown): value is string {
    return typeof value === 'string' && value.startsWith(PREFIX);
  }

  async encrypt(plaintext: string): Promise<string> {
    this.dataKey ??= this.provider().generateDataKey(this.context);
    let key: DataKey;
    try {
      key = await this.dataKey;
    } catch (error) {
      this.dataKey = undefined;
      throw error;
    }
    const sealed = seal(key.plaintext, Buffer.from(plaintext, 'utf8'), aad(this.context));
    return `${PREFIX}${key.wrapped.toString('base64')}:${sealed.toString('base64')}`;
  }

  async decrypt(ciphertext: string): Promise<string> {
    if (!SecretBox.isCiphertext(ciphertext)) throw new Error('value is not a Causeway ciphertext');
    const [wrappedB64, sealedB64] = ciphertext.slice(PREFIX.length).split(':');
    if (!wrappedB64 || !sealedB64) throw new Error('malformed ciphertext');
    let key = this.unwrapped.get(wrappedB64);
    if (!key) {
      key = this.provider().unwrapDataKey(Buffer.from(wrappedB64, 'base64'), this.context);
      this.unwrapped.set(wrappedB64, key);
      key.catch(() => this.unwrapped.delete(wrappedB64));
    }
    return open(await key, Buffer.from(sealedB64, 'base64'), aad(this.context)).toString('utf8');
  }
}
