/**
 * The script routes' use cases: a script for a config in the request body (its rules are checked
 * at the edge, `scriptBodySchema`), and the edit and delete scripts of a stored integration.
 * Scripts are rendered from the type's setup plan (`shared/platforms/scripts.ts`).
 */
import type { ApiResult } from '../../edge/handler';
import { ConflictError, InvalidInputError, NotFoundError } from '../../errors';
import {
  type BodyScriptKind,
  type IntegrationType,
  isSqlType,
  payloadSchemaFor,
  platformOf,
  REDACTED,
  type SqlPayload,
} from '../../platforms';
import { getPath } from '../../platforms/module';
import { leftoverScriptFor, repairScriptFor, scriptFor } from '../../platforms/scripts';
import { UnsafeSqlValueError } from '../../platforms/sql/quote';
import { renderScript, type Script, ScriptInputError, statementsOf } from '../../platforms/sql/script';
import { withArticle } from '../../text';
import { describeIssues } from '../../validation';
import { refusalMessage } from '../lifecycle';
import { leftoverSteps, missingStepsOf, type StoredConfig } from '../model';
import { type ConfigSecrets, integrationOwner, scrubSecrets, secretsOf } from '../secrets';
import { getIntegration } from '../store/integrations';
import { assertSecretsResent } from './rules';
import type { ScriptResponse } from './script-contracts';
import { scriptBodySchema } from './script-requests';

/** A script as JSON `{script, statements}`, or as text/plain when the caller's Accept prefers it. */
export function scriptResult(script: Script): ApiResult {
  const rendered = renderScript(script);
  return {
    body: { script: rendered, statements: statementsOf(script) } satisfies ScriptResponse,
    representations: { 'text/plain': rendered },
  };
}

async function build(kind: Parameters<typeof scriptFor>[0], payload: SqlPayload, previous?: SqlPayload) {
  try {
    return await scriptFor(kind, payload, previous);
  } catch (error) {
    if (error instanceof UnsafeSqlValueError || error instanceof ScriptInputError)
      throw new InvalidInputError(`the script cannot be generated: ${error.message}`);
    throw error;
  }
}

/** The script of a body route (initial-create, create, cleanup, post-cleanup). */
export function generateScript(kind: Exclude<BodyScriptKind, 'edit'>, payload: SqlPayload): Promise<Script> {
  return build(kind, payload);
}

async function storedIntegration(id: number) {
  const record = await getIntegration(id);
  if (!record) throw new NotFoundError(`integration ${id} not found`);
  if (!isSqlType(record.type))
    throw new InvalidInputError(
      `integration ${id} is ${withArticle(record.type)} integration, which has no scripts`,
    );
  if (record.status === 'deleted') throw new ConflictError(`integration ${id} has been deleted`);
  return record;
}

/** The stored config as a validated payload, its secrets decrypted (scripts may need them). */
async function storedPayload(
  record: { id: number; type: IntegrationType; config?: StoredConfig },
  autoBootstrap: boolean,
  secrets: ConfigSecrets = secretsOf(record),
) {
  const body = { type: record.type, autoBootstrap, config: await secrets.open(integrationOwner(record.id)) };
  const parsed = payloadSchemaFor(body).safeParse(body);
  if (!parsed.success) throw new Error('the stored configuration is not valid');
  return parsed.data as SqlPayload;
}

/** The edit script from the stored config to the body's (placeholders keep stored secrets). */
export async function editScript(id: number, body: SqlPayload): Promise<Script> {
  const record = await storedIntegration(id);
  if (body.type !== record.type)
    throw new InvalidInputError(
      `integration ${id} is ${withArticle(record.type)} integration; the type cannot change`,
    );
  const auto = record.autoBootstrap ?? false;
  // The spec's body says false for a manual script; true is accepted for an automatic integration.
  if (body.autoBootstrap && !auto)
    throw new InvalidInputError(
      `autoBootstrap cannot change: integration ${id} was set up manually (autoBootstrap false)`,
    );
  const secrets = secretsOf(record);
  const previous = await storedPayload(record, auto, secrets);
  const { config, restored } = await secrets.restore(
    body.config as StoredConfig,
    integrationOwner(record.id),
  );
  const parsed = scriptBodySchema('edit').safeParse({ ...body, config });
  if (!parsed.success)
    throw new InvalidInputError(`invalid script request: ${describeIssues(parsed.error.issues)}`);
  const next = parsed.data;
  const changed = platformOf(record.type).nonEditable.filter(
    (path) => JSON.stringify(getPath(previous.config, path)) !== JSON.stringify(getPath(next.config, path)),
  );
  if (changed.length > 0)
    throw new InvalidInputError(`these attributes cannot be edited: ${changed.join(', ')}`);
  assertSecretsResent(record.type, record.config, next.config, restored);
  // The script follows how the integration was set up.
  const script = await build('edit', { ...next, autoBootstrap: auto } as SqlPayload, previous);
  assertNoRestoredSecret(script, restoredSecrets(restored, next.config));
  return script;
}

/** Credentials (user names aside) put back for the placeholder, with their stored values. */
function restoredSecrets(restored: readonly string[], config: object): { path: string; value: string }[] {
  return restored
    .filter((path) => path !== 'username' && !path.endsWith('.username'))
    .map((path) => ({ path, value: String(getPath(config, path)) }));
}

/**
 * A script that sets a credential the caller sent as the placeholder (renaming a password user
 * re-sets its password, for instance) would hand the stored secret back in the response: such a
 * script needs the value itself. Secrets appear in scripts only as quoted literals.
 */
function assertNoRestoredSecret(script: Script, restored: readonly { path: string; value: string }[]) {
  if (restored.length === 0) return;
  const rendered = renderScript(script);
  const quoted = (v: string) => [
    `'${v.replaceAll("'", "''")}'`,
    `'${v.replaceAll('\\', '\\\\').replaceAll("'", "''")}'`,
    `'${v.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`,
  ];
  const leaking = restored.filter(({ value }) => quoted(value).some((q) => rendered.includes(q)));
  if (leaking.length > 0)
    throw new InvalidInputError(
      `the edit script sets ${leaking.map((l) => `config.${l.path}`).join(', ')}, sent as the redaction placeholder ${REDACTED}; ` +
        'stored secrets are never returned: send the value itself',
    );
}

/**
 * The cleanup script of a stored integration: what its failed setup left behind when undoing it
 * failed too (the steps recorded as carried out and not undone), else everything its setup
 * creates. Like every removal, it never drops an account the operator supplied. Refused (409,
 * naming the status) where the setup is in use: enabled, recurringValidationError, in flight.
 */
export async function cleanupScript(id: number): Promise<Script> {
  const record = await storedIntegration(id);
  const refused = refusalMessage(id, record.status, 'cleanup');
  if (refused) throw new ConflictError(refused, { status: record.status });
  // A failed edit without recorded leftovers left the setup from before the edit in use.
  if (record.status === 'editError' && !record.appliedSteps)
    throw new ConflictError(
      `integration ${id} is editError with nothing left behind by the edit: its setup from before the edit is still in use, and the cleanup script would remove it; retry the edit with PUT, or DELETE the integration`,
      { status: record.status },
    );
  const payload = await storedPayload(record, record.autoBootstrap ?? false);
  try {
    if (record.appliedSteps) return await leftoverScriptFor(payload, leftoverSteps(record));
  } catch (error) {
    if (error instanceof UnsafeSqlValueError || error instanceof ScriptInputError)
      throw new InvalidInputError(`the script cannot be generated: ${error.message}`);
    throw error;
  }
  return build('delete', payload);
}

/**
 * The repair script of an integration in `recurringValidationError`: the statements that recreate
 * exactly what its last check found missing, in plan order. A stored secret a statement needs is
 * shown as the redaction placeholder, for the operator to put back.
 */
export async function repairScript(id: number): Promise<Script> {
  const record = await storedIntegration(id);
  const refused = refusalMessage(id, record.status, 'repair');
  if (refused) throw new ConflictError(refused, { status: record.status });
  const stored = secretsOf(record);
  const payload = await storedPayload(record, record.autoBootstrap ?? false, stored);
  const script = await repairScriptFor(payload, missingStepsOf(record));
  const secrets = await stored.openAll(integrationOwner(record.id));
  const sections = script.sections.map((section) => {
    const statements = section.statements.map((s) => scrubLiterals(s, secrets));
    const redacted = statements.some((s, i) => s !== section.statements[i]);
    return redacted
      ? {
          ...section,
          statements,
          note: `${section.note} Put the integration's stored credential where ${REDACTED} stands.`,
        }
      : section;
  });
  return { ...script, sections };
}

/**
 * A statement with every stored secret inside its string literals (passwords, keys) replaced by
 * the placeholder; identifiers — the account names the operator's scripts name, as the setup and
 * removal scripts do — stay.
 */
function scrubLiterals(statement: string, secrets: readonly string[]): string {
  return statement.replace(/'(?:[^']|'')*'/g, (literal) => scrubSecrets(literal, secrets));
}

/** The delete script of a stored integration. */
export async function deleteScript(id: number): Promise<Script> {
  const record = await storedIntegration(id);
  return build('delete', await storedPayload(record, record.autoBootstrap ?? false));
}
