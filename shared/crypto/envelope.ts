/**
 * Envelope encryption for secrets at rest (integration credentials, webhook secrets, transient
 * workflow credentials). A data key from the key provider encrypts values with AES-256-GCM; the
 * wrapped data key travels with the ciphertext. In AWS the provider is KMS (`SECRETS_KMS_KEY_ID`);
 * in the local cloud it is a master key file in the state directory (`LOCAL_MASTER_KEY_FILE`).
 *
 * Every envelope is bound to its context: the service, the box's purpose and the caller's
 * binding (for integration secrets: the record, the field and the connection it is sent over).
 * The context is the KMS encryption context of the data key and the AES-GCM additional data of
 * the value, so a ciphertext moved anywhere else fails to open (docs/adr/0008).
 *
 * Ciphertext format: `enc:v2:<wrapped data key, base64>:<iv|tag|ciphertext, base64>`. `enc:v1:`
 * values (written before bindings existed: one data key per purpose, no binding) open only in a
 * box that names the purpose they were sealed under (`legacyPurpose`), until the one-off reseal
 * (`npm run cli -- secrets reseal`) rewrites them bound.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { optionalEnv } from '../config/env';
import { withoutSdkLogging } from '../config/sdk-clients';

export interface DataKey {
  plaintext: Buffer;
  wrapped: Buffer;
}

export interface KeyProvider {
  generateDataKey(context: Record<string, string>): Promise<DataKey>;
  unwrapDataKey(wrapped: Buffer, context: Record<string, string>): Promise<Buffer>;
}

const PREFIX = 'enc:v2:';
const LEGACY_PREFIX = 'enc:v1:';
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
/** IV (12 bytes) and GCM tag (16 bytes) precede the ciphertext. */
const SEALED_OVERHEAD = 28;

/** Where an envelope belongs, beyond its purpose (e.g. record, field, connection). */
export type Binding = Readonly<Record<string, string>>;

/**
 * A value the box cannot open: not an envelope of the expected shape (`malformed`), an `enc:v1:`
 * envelope in a box that reads none (`legacy`), or one sealed for another context or key, or
 * altered (`unopened`). Never carries the value.
 */
export class UnreadableCiphertextError extends Error {
  override name = 'UnreadableCiphertextError';
  constructor(readonly reason: 'malformed' | 'legacy' | 'unopened') {
    super(
      {
        malformed: 'the value is not a well-formed Causeway ciphertext',
        legacy: 'the value was sealed without a binding (enc:v1) and must be re-sealed',
        unopened: 'the ciphertext does not open in this context (moved, altered, or another key)',
      }[reason],
    );
  }
}

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
    if (wrapped.length < SEALED_OVERHEAD) throw new UnreadableCiphertextError('malformed');
    try {
      return open(this.masterKey, wrapped, aad(context));
    } catch {
      throw new UnreadableCiphertextError('unopened');
    }
  }
}

/** KMS-backed provider; the SDK client is loaded only where a function uses secrets. */
class KmsKeyProvider implements KeyProvider {
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
    const out = await kms(KMSClient)
      .send(new DecryptCommand({ CiphertextBlob: wrapped, EncryptionContext: context, KeyId: this.keyId }))
      .catch((error: unknown) => {
        // Another encryption context (a moved value) or not a data key of this key.
        if ((error as Error)?.name === 'InvalidCiphertextException')
          throw new UnreadableCiphertextError('unopened');
        throw error;
      });
    if (!out.Plaintext) throw new Error('KMS returned no plaintext');
    return Buffer.from(out.Plaintext);
  }
}

let kmsClient: InstanceType<typeof import('@aws-sdk/client-kms').KMSClient> | undefined;
function kms(KMSClient: typeof import('@aws-sdk/client-kms').KMSClient) {
  kmsClient ??= withoutSdkLogging(new KMSClient({}));
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

function defaultKeyProvider(): KeyProvider {
  const kmsKeyId = optionalEnv('SECRETS_KMS_KEY_ID');
  if (kmsKeyId) return new KmsKeyProvider(kmsKeyId);
  const file = optionalEnv('LOCAL_MASTER_KEY_FILE');
  if (file) return LocalKeyProvider.fromFile(file);
  throw new Error('no key provider: set SECRETS_KMS_KEY_ID (AWS) or LOCAL_MASTER_KEY_FILE (local cloud)');
}

/** Entries the per-context key caches keep (a container serves a few integrations at a time). */
const CACHE_ENTRIES = 256;

function remember<V>(cache: Map<string, V>, key: string, value: V): V {
  cache.set(key, value);
  if (cache.size > CACHE_ENTRIES) cache.delete(cache.keys().next().value as string);
  return value;
}

/**
 * Encrypts and decrypts strings. One instance per purpose; each call names its binding, and the
 * purpose and binding together are the envelope's context (KMS encryption context and AES-GCM
 * additional data): a webhook secret cannot be opened as an integration credential, nor an
 * integration's password as another integration's, another field's, or over another connection.
 * One data key per context is generated and cached (a KMS call per new context).
 */
export class SecretBox {
  private readonly dataKeys = new Map<string, Promise<DataKey>>();
  private readonly unwrapped = new Map<string, Promise<Buffer>>();

  constructor(
    private readonly purpose: string,
    private readonly provider: () => KeyProvider = defaultKeyProvider,
    /**
     * The purpose this box's `enc:v1:` values were sealed under (before bindings existed): they
     * open under that purpose alone, whatever the binding. Without it, `enc:v1:` is refused.
     */
    private readonly options: { legacyPurpose?: string } = {},
  ) {}

  /** Whether a stored value has the shape of an envelope (any version). */
  static isCiphertext(value: unknown): value is string {
    return typeof value === 'string' && (value.startsWith(PREFIX) || value.startsWith(LEGACY_PREFIX));
  }

  /** Whether a stored value is an `enc:v1:` envelope (sealed without a binding; see `reseal`). */
  static isLegacy(value: unknown): value is string {
    return typeof value === 'string' && value.startsWith(LEGACY_PREFIX);
  }

  private context(binding: Binding): Record<string, string> {
    if ('service' in binding || 'purpose' in binding)
      throw new Error('a binding cannot name the service or the purpose');
    return { ...binding, service: 'causeway', purpose: this.purpose };
  }

  async encrypt(plaintext: string, binding: Binding = {}): Promise<string> {
    const context = this.context(binding);
    const contextKey = aad(context).toString('base64');
    const pending =
      this.dataKeys.get(contextKey) ??
      remember(this.dataKeys, contextKey, this.provider().generateDataKey(context));
    let key: DataKey;
    try {
      key = await pending;
    } catch (error) {
      this.dataKeys.delete(contextKey);
      throw error;
    }
    const sealed = seal(key.plaintext, Buffer.from(plaintext, 'utf8'), aad(context));
    return `${PREFIX}${key.wrapped.toString('base64')}:${sealed.toString('base64')}`;
  }

  /** The plaintext; `UnreadableCiphertextError` when the value does not open in this context. */
  async decrypt(ciphertext: string, binding: Binding = {}): Promise<string> {
    const legacy = SecretBox.isLegacy(ciphertext);
    const { legacyPurpose } = this.options;
    if (legacy && legacyPurpose === undefined) throw new UnreadableCiphertextError('legacy');
    if (!SecretBox.isCiphertext(ciphertext)) throw new UnreadableCiphertextError('malformed');
    const parts = ciphertext.slice(PREFIX.length).split(':');
    const [wrappedB64, sealedB64] = parts;
    if (
      parts.length !== 2 ||
      !wrappedB64 ||
      !sealedB64 ||
      !BASE64.test(wrappedB64) ||
      !BASE64.test(sealedB64)
    )
      throw new UnreadableCiphertextError('malformed');
    const sealed = Buffer.from(sealedB64, 'base64');
    if (sealed.length < SEALED_OVERHEAD) throw new UnreadableCiphertextError('malformed');
    // A v1 envelope was sealed under its purpose alone, before bindings existed.
    const context = legacy
      ? { service: 'causeway', purpose: legacyPurpose as string }
      : this.context(binding);
    const cacheKey = `${aad(context).toString('base64')}|${wrappedB64}`;
    let key = this.unwrapped.get(cacheKey);
    if (!key) {
      key = remember(
        this.unwrapped,
        cacheKey,
        this.provider().unwrapDataKey(Buffer.from(wrappedB64, 'base64'), context),
      );
      key.catch(() => this.unwrapped.delete(cacheKey));
    }
    const dataKey = await key;
    try {
      return open(dataKey, sealed, aad(context)).toString('utf8');
    } catch {
      throw new UnreadableCiphertextError('unopened');
    }
  }
}
