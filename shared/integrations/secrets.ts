/**
 * Secrets inside integration configs: which fields they are (`platformOf(type).secretPaths`),
 * encrypting them for storage and transport, decrypting them for connectors, redacting them
 * for responses, and keeping stored values when a PUT sends the placeholder back.
 */
import { SecretBox } from '../crypto/envelope';
import { type IntegrationType, platformOf, REDACTED } from '../platforms';
import { getPath, setPath } from '../platforms/module';

const box = new SecretBox('integration-config');

type Json = Record<string, unknown>;

async function mapSecrets(
  type: IntegrationType,
  config: Json | undefined,
  fn: (value: string) => string | Promise<string>,
): Promise<Json | undefined> {
  if (!config) return config;
  const copy = structuredClone(config);
  for (const path of platformOf(type).secretPaths) {
    const value = getPath(copy, path);
    if (typeof value === 'string') setPath(copy, path, await fn(value));
  }
  return copy;
}

/** Every secret field replaced by its ciphertext (for DynamoDB and for in-flight payloads). */
export function encryptSecrets(type: IntegrationType, config: Json | undefined): Promise<Json | undefined> {
  return mapSecrets(type, config, (v) => (SecretBox.isCiphertext(v) ? v : box.encrypt(v)));
}

/** Every ciphertext secret field decrypted (connectors only; never log the result). */
export function decryptSecrets(type: IntegrationType, config: Json | undefined): Promise<Json | undefined> {
  return mapSecrets(type, config, (v) => (SecretBox.isCiphertext(v) ? box.decrypt(v) : v));
}

/** A payload whose config's secrets are encrypted (to store it, or send it to the connector function). */
export async function encryptedPayload<P extends { type: IntegrationType; config?: unknown }>(
  payload: P,
): Promise<P> {
  return { ...payload, config: await encryptSecrets(payload.type, payload.config as Json | undefined) };
}

/** A payload whose config's secrets are decrypted (connectors and scripts only; never log it). */
export async function decryptedPayload<P extends { type: IntegrationType; config?: unknown }>(
  payload: P,
): Promise<P> {
  return { ...payload, config: await decryptSecrets(payload.type, payload.config as Json | undefined) };
}

/** Every secret field replaced by the redaction placeholder (for responses). */
export function redactSecrets(type: IntegrationType, config: Json | undefined): Promise<Json | undefined> {
  return mapSecrets(type, config, () => REDACTED);
}

/** A config with the placeholders put back, and the secret paths that were. */
export interface RestoredConfig {
  config: Json | undefined;
  /** Secret paths where the caller sent the placeholder and the stored value was put back. */
  restored: string[];
}

/**
 * For a PUT (or an edit script): wherever the incoming config holds the placeholder, put back
 * the stored value (decrypted), so callers can send a read config back unchanged. Whether the
 * stored values may be reused is the caller's next check (`assertSecretsResent`, once the body
 * is parsed): never over a changed connection.
 */
export async function restorePlaceholders(
  type: IntegrationType,
  incoming: Json | undefined,
  stored: Json | undefined,
): Promise<RestoredConfig> {
  if (!incoming) return { config: incoming, restored: [] };
  const copy = structuredClone(incoming);
  const restored: string[] = [];
  for (const path of platformOf(type).secretPaths) {
    if (getPath(copy, path) !== REDACTED) continue;
    const previous = stored ? getPath(stored, path) : undefined;
    if (typeof previous !== 'string') continue;
    setPath(copy, path, SecretBox.isCiphertext(previous) ? await box.decrypt(previous) : previous);
    restored.push(path);
  }
  return { config: copy, restored };
}

/** Encrypts an arbitrary credential object (delete payloads) as one opaque string. */
export function sealCredentials(credentials: Json): Promise<string> {
  return box.encrypt(JSON.stringify(credentials));
}

export async function openCredentials(sealed: string): Promise<Json> {
  return JSON.parse(await box.decrypt(sealed)) as Json;
}

/** The plaintext of every secret field of a config (stored ciphertext is decrypted). */
export async function secretValuesOf(type: IntegrationType, config: Json | undefined): Promise<string[]> {
  const values: string[] = [];
  if (!config) return values;
  for (const path of platformOf(type).secretPaths) {
    const value = getPath(config, path);
    if (typeof value === 'string')
      values.push(SecretBox.isCiphertext(value) ? await box.decrypt(value) : value);
  }
  return values;
}

/** Every string inside an arbitrary credential object (delete payloads). */
export function stringValues(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (value && typeof value === 'object') return Object.values(value).flatMap(stringValues);
  return [];
}

/** Secrets shorter than this are not searched for (they would mangle ordinary words). */
const MIN_SCRUBBED = 3;

/**
 * Replaces every occurrence of a known secret in a message meant for callers (connector
 * messages can quote a user name or a driver's echo of a value); defence in depth on top of
 * connectors never building messages from secrets.
 */
export function scrubSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of [...secrets].sort((a, b) => b.length - a.length)) {
    if (secret.length >= MIN_SCRUBBED && secret !== REDACTED) out = out.split(secret).join(REDACTED);
  }
  return out;
}
