/**
 * Request rules that need no storage: placeholders sent where nothing is stored, attributes a
 * PUT may not change, and the delete payload each type and bootstrap mode accepts.
 */
import { InvalidInputError } from '../../errors';
import { type IntegrationPayload, type IntegrationType, platformOf, REDACTED } from '../../platforms';
import { connectionChanges } from '../../platforms/connection';
import { getPath } from '../../platforms/module';
import { withArticle } from '../../text';
import { parseWith } from '../../validation';
import type { IntegrationRecord } from '../model';

type Json = Record<string, unknown>;

function isPlainObject(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * Secret fields still holding the redaction placeholder after stored values were restored: the
 * caller sent the placeholder for a secret the service does not have.
 */
export function assertNoPlaceholders(payload: IntegrationPayload): void {
  const config = 'config' in payload ? payload.config : undefined;
  const left = platformOf(payload.type).secretPaths.filter((path) => getPath(config, path) === REDACTED);
  if (left.length > 0) {
    throw new InvalidInputError(
      `invalid integration: ${left.map((p) => `config.${p}`).join(', ')}: the redaction placeholder ${REDACTED} ` +
        'keeps a stored secret only where one is stored; send the secret itself',
    );
  }
}

/**
 * The one rule for reusing stored secrets: the placeholder keeps a stored secret only while the
 * type's connection identity (host, port, URLs, connection and TLS arguments: see
 * `shared/platforms/connection.ts`) is unchanged. A change to it needs every secret again, so a
 * stored secret is never sent somewhere new or over a weakened connection. `restored` are the
 * secret paths whose placeholder was replaced by the stored value; `stored` and `next` are
 * configs as stored (defaults applied).
 */
export function assertSecretsResent(
  type: IntegrationType,
  stored: unknown,
  next: unknown,
  restored: readonly string[],
): void {
  if (restored.length === 0) return;
  const changed = connectionChanges(platformOf(type), stored, next);
  if (changed.length === 0) return;
  const config = (paths: readonly string[]) => paths.map((p) => `config.${p}`).join(', ');
  throw new InvalidInputError(
    `invalid integration: ${config(restored)}: sent as the redaction placeholder ${REDACTED}, but the connection changed ` +
      `(${config(changed)}); a stored secret is never reused over a changed connection: send every secret again`,
  );
}

const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/**
 * Attributes of `next` that differ from the stored integration but may not change: the type,
 * the bootstrap mode, the host identity (uniqueness claims) and the type's non-editable config
 * paths. `creationRetry` (a PUT on an integration whose creation failed) relaxes everything but
 * the type and host identity: nothing was created remotely that a change could orphan.
 */
export function nonEditableChanges(
  record: IntegrationRecord,
  next: IntegrationPayload,
  nextClaims: readonly string[],
  creationRetry: boolean,
): string[] {
  const changed: string[] = [];
  if (next.type !== record.type) return ['type'];
  if (!same([...record.claims].sort(), [...nextClaims].sort())) changed.push(...identityAttributes(next));
  if (creationRetry || !('config' in next)) return dedupe(changed);
  if (next.autoBootstrap !== record.autoBootstrap) changed.push('autoBootstrap');
  for (const path of platformOf(next.type).nonEditable) {
    if (!same(getPath(record.config, path), getPath(next.config, path))) changed.push(`config.${path}`);
  }
  return dedupe(changed);
}

function dedupe(list: string[]): string[] {
  return [...new Set(list)];
}

/** The config attributes that make up a type's host identity (its uniqueness claims). */
function identityAttributes(payload: IntegrationPayload): string[] {
  return [...platformOf(payload.type).identityAttributes];
}

/**
 * The privileged credentials a DELETE carries, per the spec's DELETE errors: refused for
 * manually bootstrapped integrations and for types whose delete takes no body (no
 * `deletion` rules in their module); required for automatically bootstrapped integrations of
 * the others (unless force-disabling, which does no remote work). A module may accept a body
 * that carries no credential for a manual integration (`deletion.ignoredManualBody`).
 */
export function deleteCredentials(
  record: Pick<IntegrationRecord, 'id' | 'type' | 'autoBootstrap'>,
  body: unknown,
  forceDisable: boolean,
): Json | undefined {
  const empty =
    body === undefined || body === null || (isPlainObject(body) && Object.keys(body).length === 0);
  const rules = platformOf(record.type).deletion;
  if (!rules) {
    if (empty) return undefined;
    throw new InvalidInputError(
      `credentials were sent for ${withArticle(record.type)} integration (id ${record.id}); they must be removed: ` +
        `DELETE of ${withArticle(record.type)} integration takes no body`,
    );
  }
  if (record.autoBootstrap !== true) {
    if (empty) return undefined;
    if (isPlainObject(body) && rules.ignoredManualBody?.(body)) return undefined;
    throw new InvalidInputError(
      `credentials were sent for integration ${record.id}, which was bootstrapped manually (autoBootstrap false); they must be removed`,
    );
  }
  if (empty) {
    if (forceDisable) return undefined;
    throw new InvalidInputError(
      `integration ${record.id} was created with autoBootstrap true and no privileged credentials were sent; ` +
        'send them in the DELETE body so the service can remove what it created',
    );
  }
  const credentials = parseWith(rules.schema, body, 'delete payload') as Json;
  const missing = (rules.requiredWhenAutomatic ?? []).filter((k) => typeof credentials[k] !== 'string');
  if (missing.length > 0) {
    throw new InvalidInputError(
      `invalid delete payload: ${missing.join(', ')}: required because integration ${record.id} was created with autoBootstrap true`,
    );
  }
  return credentials;
}
