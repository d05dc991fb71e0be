/**
 * Secrets inside integration configs: which fields they are (`platformOf(type).secretPaths`),
 * encrypting them for storage and transport, decrypting them for connectors, redacting them
 * for responses, and keeping stored values when a PUT sends the placeholder back.
 *
 * Every secret is sealed for its place (docs/adr/0008): its owner (the integration, or the create
 * request whose integration does not exist yet), its field, and the connection it is sent over
 * (a digest of the type's connection identity, `shared/platforms/connection.ts`). A value a caller
 * sends is always plaintext, whatever it looks like: it is sealed like any other, never opened.
 */
import { createHash, randomUUID } from 'node:crypto';
import { type Binding, SecretBox, UnreadableCiphertextError } from '../crypto/envelope';
import { ConflictError } from '../errors';
import { type IntegrationType, platformOf, REDACTED } from '../platforms';
import { connectionIdentity } from '../platforms/connection';
import { getPath, setPath } from '../platforms/module';

/**
 * Config secrets. `enc:v1:` values (sealed under the old purpose, unbound) still open until the
 * one-off reseal (`./reseal-secrets.ts`) rewrites them bound; callers can no longer produce them.
 */
export const LEGACY_CONFIG_PURPOSE = 'integration-config';
const box = new SecretBox('integration-secret', undefined, { legacyPurpose: LEGACY_CONFIG_PURPOSE });
/** Privileged delete credentials: their own purpose, bound to the integration and its connection. */
const credentialsBox = new SecretBox('integration-delete-credentials');

type Json = Record<string, unknown>;

/** Whose secrets a sealed config holds: a stored integration's, or a create request's. */
export type SecretOwner = `integration-${number}` | `request-${string}`;

/** The owner of a stored integration's secrets (its config and pending config). */
export const integrationOwner = (id: number): SecretOwner => `integration-${id}`;

/** A fresh owner for a create request's payload, sealed before its integration has an id. */
export const requestOwner = (): SecretOwner => `request-${randomUUID()}`;

/** The digest of a config's connection identity: what its secrets are bound to besides owner and field. */
function connectionDigest(type: IntegrationType, config: unknown): string {
  return createHash('sha256')
    .update(connectionIdentity(platformOf(type), config))
    .digest('base64url');
}

/** A stored secret that does not open here: a clear 409 naming the field, never the value. */
export class UnreadableSecretError extends ConflictError {
  override name = 'UnreadableSecretError';
}

function whose(owner: SecretOwner): string {
  return owner.startsWith('integration-')
    ? `integration ${owner.slice('integration-'.length)}`
    : 'the request';
}

const SEND_SECRETS_AGAIN =
  'it was not sealed for this integration, field and connection, or is damaged: send every secret again with PUT';

async function opened<T>(
  owner: SecretOwner,
  field: string,
  open: () => Promise<T>,
  remedy = SEND_SECRETS_AGAIN,
): Promise<T> {
  try {
    return await open();
  } catch (error) {
    if (!(error instanceof UnreadableCiphertextError)) throw error;
    throw new UnreadableSecretError(
      `the stored secret ${field} of ${whose(owner)} cannot be decrypted; ${remedy}`,
    );
  }
}

/** A config with the placeholders put back, and the secret paths that were. */
export interface RestoredConfig {
  config: Json | undefined;
  /** Secret paths where the caller sent the placeholder and the stored value was put back. */
  restored: string[];
}

/**
 * The secrets of one config — a request's (plaintext) or a stored one (sealed) — and everything
 * done with them: sealing, opening, listing, redacting, restoring placeholders, resealing, and
 * the delete credentials bound to the same connection. Build it once per config and request: the
 * connection digest every binding carries is computed once, on first use.
 */
export class ConfigSecrets {
  #connection: string | undefined;

  constructor(
    readonly type: IntegrationType,
    readonly config: Json | undefined,
  ) {}

  private binding(owner: SecretOwner, field: string): Binding {
    this.#connection ??= connectionDigest(this.type, this.config);
    return { owner, field, connection: this.#connection };
  }

  private get paths(): readonly string[] {
    return platformOf(this.type).secretPaths;
  }

  private async map(
    fn: (value: string, path: string) => string | Promise<string>,
  ): Promise<Json | undefined> {
    if (!this.config) return this.config;
    const copy = structuredClone(this.config);
    for (const path of this.paths) {
      const value = getPath(copy, path);
      if (typeof value === 'string') setPath(copy, path, await fn(value, path));
    }
    return copy;
  }

  private openValue(value: string, path: string, owner: SecretOwner): Promise<string> {
    return opened(owner, `config.${path}`, () => box.decrypt(value, this.binding(owner, path)));
  }

  /**
   * Every secret field sealed for `owner` (for DynamoDB and for in-flight payloads). Values that
   * look like ciphertext are sealed too: they are whatever the caller sent.
   */
  seal(owner: SecretOwner): Promise<Json | undefined> {
    return this.map((value, path) => box.encrypt(value, this.binding(owner, path)));
  }

  /** Every secret field (sealed for `owner`) opened (connectors and scripts only; never log it). */
  open(owner: SecretOwner): Promise<Json | undefined> {
    return this.map((value, path) => this.openValue(value, path, owner));
  }

  /** Every secret field replaced by the redaction placeholder (for responses). */
  redact(): Promise<Json | undefined> {
    return this.map(() => REDACTED);
  }

  /** The values of every secret field of a request's plaintext config (nothing is decrypted). */
  plaintext(): string[] {
    return this.paths
      .map((path) => getPath(this.config, path))
      .filter((value): value is string => typeof value === 'string');
  }

  /**
   * The plaintext of every secret field of a stored config (sealed for `owner`). `skipUnreadable`
   * leaves out values that do not open (for scrubbing a message: a secret nobody could decrypt
   * cannot be in it); otherwise they are an `UnreadableSecretError`.
   */
  async openAll(owner: SecretOwner, options: { skipUnreadable?: boolean } = {}): Promise<string[]> {
    const values: string[] = [];
    for (const path of this.paths) {
      const value = getPath(this.config, path);
      if (typeof value !== 'string') continue;
      try {
        values.push(await this.openValue(value, path, owner));
      } catch (error) {
        if (!(options.skipUnreadable && error instanceof UnreadableSecretError)) throw error;
      }
    }
    return values;
  }

  /**
   * For a PUT (or an edit script), with this object holding the stored config: wherever the
   * incoming config holds the placeholder, put back the stored value (decrypted), so callers can
   * send a read config back unchanged. Whether the stored values may be reused is the caller's
   * next check (`assertSecretsResent`, once the body is parsed): never over a changed connection.
   */
  async restore(incoming: Json | undefined, owner: SecretOwner): Promise<RestoredConfig> {
    if (!incoming) return { config: incoming, restored: [] };
    const copy = structuredClone(incoming);
    const restored: string[] = [];
    for (const path of this.paths) {
      if (getPath(copy, path) !== REDACTED) continue;
      const previous = this.config ? getPath(this.config, path) : undefined;
      if (typeof previous !== 'string') continue;
      setPath(copy, path, await this.openValue(previous, path, owner));
      restored.push(path);
    }
    return { config: copy, restored };
  }

  /**
   * The config with every `enc:v1:` secret (sealed before bindings) opened and sealed again for
   * `owner`, its field and the config's connection; `resealed` counts them (0: unchanged).
   */
  async resealLegacy(owner: SecretOwner): Promise<{ config: Json | undefined; resealed: number }> {
    let resealed = 0;
    const next = await this.map(async (value, path) => {
      if (!SecretBox.isLegacy(value)) return value;
      const binding = this.binding(owner, path);
      const plaintext = await opened(owner, `config.${path}`, () => box.decrypt(value, binding));
      resealed++;
      return box.encrypt(plaintext, binding);
    });
    return { config: resealed > 0 ? next : this.config, resealed };
  }

  /** A delete's privileged credentials as one opaque string, for integration `id` (this config's) only. */
  sealCredentials(credentials: Json, id: number): Promise<string> {
    return credentialsBox.encrypt(
      JSON.stringify(credentials),
      this.binding(integrationOwner(id), 'deleteCredentials'),
    );
  }

  async openCredentials(sealed: string, id: number): Promise<Json> {
    const owner = integrationOwner(id);
    const text = await opened(
      owner,
      'delete credentials',
      () => credentialsBox.decrypt(sealed, this.binding(owner, 'deleteCredentials')),
      'they were sealed for another integration or connection, or before this release: send the DELETE again',
    );
    return JSON.parse(text) as Json;
  }
}

/** The secrets of a payload's (or a stored integration's) config. */
export const secretsOf = (payload: { type: IntegrationType; config?: unknown }): ConfigSecrets =>
  new ConfigSecrets(payload.type, payload.config as Json | undefined);

/** A payload whose config's secrets are sealed for `owner` (to store it, or send it to the connector function). */
export async function encryptedPayload<P extends { type: IntegrationType; config?: unknown }>(
  payload: P,
  owner: SecretOwner,
  secrets = secretsOf(payload),
): Promise<P> {
  return { ...payload, config: await secrets.seal(owner) };
}

/** A payload whose config's secrets (sealed for `owner`) are opened (connectors and scripts only; never log it). */
export async function decryptedPayload<P extends { type: IntegrationType; config?: unknown }>(
  payload: P,
  owner: SecretOwner,
  secrets = secretsOf(payload),
): Promise<P> {
  return { ...payload, config: await secrets.open(owner) };
}

/** Every string inside an arbitrary credential object (delete payloads). */
export function stringValues(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (value && typeof value === 'object') return Object.values(value).flatMap(stringValues);
  return [];
}

/** A value at least this long is a secret wherever it stands, even glued into a longer word. */
const ALWAYS_SCRUBBED = 8;

/**
 * Shorter values are not searched for: one or two characters cannot be told from ordinary words
 * ("a", "in") and protect nothing (docs/webhooks.md, issue 34 item 18).
 */
const MIN_SCRUBBED = 3;

const WORD_CHARS = '[\\p{L}\\p{N}_]';
const WORD = new RegExp(WORD_CHARS, 'u');
const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Replaces every known secret in a message meant for callers (connector messages can quote a
 * user name or a driver's echo of a value); defence in depth on top of connectors never building
 * messages from secrets. A value is replaced where it stands as a whole word, whatever its
 * length; inside a longer word (`svc` in the database name `svcdb`) only a value of 8 or more
 * characters counts, and then the whole word goes, so neither a fragment of another name is
 * mangled nor a long secret let through with letters glued to it (docs/integrations.md,
 * "What a message never shows").
 */
export function scrubSecrets(text: string, secrets: readonly string[]): string {
  const patterns = [...new Set(secrets)]
    .filter((secret) => secret.length >= MIN_SCRUBBED && secret !== REDACTED)
    .sort((a, b) => b.length - a.length)
    .map((secret) => {
      if (secret.length >= ALWAYS_SCRUBBED) return `${WORD_CHARS}*${escaped(secret)}${WORD_CHARS}*`;
      // A side of the value that is itself a word character must not touch another one.
      const before = WORD.test(secret.at(0) ?? '') ? `(?<!${WORD_CHARS})` : '';
      const after = WORD.test(secret.at(-1) ?? '') ? `(?!${WORD_CHARS})` : '';
      return `${before}${escaped(secret)}${after}`;
    });
  // One pass, longest value first, so a replacement is never searched again.
  return patterns.length === 0 ? text : text.replace(new RegExp(patterns.join('|'), 'gu'), REDACTED);
}
