/**
 * The script routes: request rules, the edit/delete lookups of the stored integration, content
 * negotiation (text/plain script or JSON), and their OpenAPI contracts (`scriptContracts`).
 */
import * as z from 'zod';
import type { RouteContract } from '../catalog/contract';
import type { ApiResult } from '../edge/handler';
import { idParam } from '../edge/validation';
import { JSON_OR_YAML } from '../edge/yaml';
import { ConflictError, InvalidInputError, NotFoundError } from '../errors';
import { decryptSecrets, restorePlaceholders } from '../integrations/secrets';
import { describeIssues } from '../validation';
import { IntegrationPayloadSchema, type IntegrationType, platformOf, REDACTED } from '.';
import { SCRIPT_TYPES, type ScriptKind, SQL_TYPES, type SqlPayload, scriptFor } from './scripts';
import { UnsafeSqlValueError } from './sql/quote';
import { renderScript, type Script, ScriptInputError, statementsOf } from './sql/script';

export const ScriptResponseSchema = z
  .object({
    script: z
      .string()
      .describe('The statements as one script, with comments saying where to run each section.'),
    statements: z
      .array(z.string())
      .describe('The same statements, one per entry, without trailing semicolons.'),
  })
  .meta({ id: 'Script' });
export type ScriptResponse = z.infer<typeof ScriptResponseSchema>;

/** The edge checks the envelope; unknown fields are kept so the type's strict schema refuses them. */
export const ScriptBodySchema = z.looseObject({
  type: z.string(),
  autoBootstrap: z.boolean(),
  config: z.record(z.string(), z.unknown()),
});

const IdParamsSchema = z.object({ id: idParam() });

/** Whether the caller's Accept header prefers text/plain over JSON (JSON wins ties and by default). */
export function prefersText(accept: string | undefined): boolean {
  if (!accept) return false;
  let text = 0;
  let json = 0;
  for (const part of accept.split(',')) {
    const [range = '', ...params] = part.trim().toLowerCase().split(';');
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const q = qParam ? Number(qParam.slice(2)) : 1;
    if (!Number.isFinite(q)) continue;
    const type = range.trim();
    const t = type === 'text/plain' ? q + 0.002 : type === 'text/*' ? q + 0.001 : type === '*/*' ? q : -1;
    const j =
      type === 'application/json'
        ? q + 0.002
        : type === 'application/*'
          ? q + 0.001
          : type === '*/*'
            ? q
            : -1;
    text = Math.max(text, t);
    json = Math.max(json, j);
  }
  return text > json;
}

/** The answer of a script route: the script as text/plain when the Accept header prefers it, else JSON. */
export function scriptAnswer(script: Script, accept: string | undefined): ApiResult {
  const rendered = renderScript(script);
  if (prefersText(accept)) return { body: rendered, contentType: 'text/plain; charset=utf-8' };
  return { body: { script: rendered, statements: statementsOf(script) } satisfies ScriptResponse };
}

function build(kind: ScriptKind, payload: SqlPayload, previous?: SqlPayload): Script {
  try {
    return scriptFor(kind, payload, previous);
  } catch (error) {
    if (error instanceof UnsafeSqlValueError || error instanceof ScriptInputError)
      throw new InvalidInputError(`the script cannot be generated: ${error.message}`);
    throw error;
  }
}

export type ScriptBody = z.output<typeof ScriptBodySchema>;

/** The body rules of the script endpoints: accepted types, autoBootstrap false, a valid config. */
export function parseScriptBody(
  kind: Exclude<ScriptKind, 'delete'>,
  envelope: { type: string; autoBootstrap: boolean; config: unknown },
): SqlPayload {
  const accepted = SCRIPT_TYPES[kind];
  if (!(accepted as readonly string[]).includes(envelope.type))
    throw new InvalidInputError(
      `type ${envelope.type} is not accepted here; accepted types: ${accepted.join(', ')}`,
    );
  if (envelope.autoBootstrap !== false)
    throw new InvalidInputError('autoBootstrap must be false: scripts are for manual setup');
  const parsed = IntegrationPayloadSchema.safeParse(envelope);
  if (!parsed.success)
    throw new InvalidInputError(`invalid script request: ${describeIssues(parsed.error.issues)}`);
  return parsed.data as SqlPayload;
}

export function generateScript(kind: Exclude<ScriptKind, 'edit' | 'delete'>, body: ScriptBody): Script {
  return build(kind, parseScriptBody(kind, body));
}

async function storedIntegration(id: number) {
  const { getIntegration } = await import('../integrations/repository');
  const record = await getIntegration(id);
  if (!record) throw new NotFoundError(`integration ${id} not found`);
  if (!(SQL_TYPES as readonly string[]).includes(record.type))
    throw new InvalidInputError(`integration ${id} is a ${record.type} integration, which has no scripts`);
  if (record.status === 'deleted') throw new ConflictError(`integration ${id} has been deleted`);
  return { record };
}

/** The stored config as a validated payload (decrypted when the script may need a secret). */
async function storedPayload(
  type: string,
  autoBootstrap: boolean,
  config: Record<string, unknown> | undefined,
  decrypt: boolean,
): Promise<SqlPayload> {
  const plain = decrypt ? await decryptSecrets(type as SqlPayload['type'], config) : config;
  const parsed = IntegrationPayloadSchema.safeParse({ type, autoBootstrap, config: plain });
  if (!parsed.success) throw new Error('the stored configuration is not valid');
  return parsed.data as SqlPayload;
}

export async function editScript(id: number, envelope: ScriptBody): Promise<Script> {
  const { record } = await storedIntegration(id);
  if (envelope.type !== record.type)
    throw new InvalidInputError(`integration ${id} is a ${record.type} integration; the type cannot change`);
  const previous = await storedPayload(record.type, record.autoBootstrap ?? false, record.config, true);
  const restored = await restorePlaceholders(record.type, envelope.config, record.config);
  const next = parseScriptBody('edit', { ...envelope, config: restored });
  const changed = platformOf(record.type).nonEditable.filter(
    (path) => JSON.stringify(valueAt(previous.config, path)) !== JSON.stringify(valueAt(next.config, path)),
  );
  if (changed.length > 0)
    throw new InvalidInputError(`these attributes cannot be edited: ${changed.join(', ')}`);
  // The script follows how the integration was set up (the body's autoBootstrap is always false).
  const auto = record.autoBootstrap ?? false;
  const script = build('edit', { ...next, autoBootstrap: auto } as SqlPayload, previous);
  assertNoRestoredSecret(script, restoredSecrets(record.type, envelope.config, next.config));
  return script;
}

/**
 * Credentials (user names aside) the caller sent as the redaction placeholder, with the stored
 * values that were put back for them.
 */
function restoredSecrets(
  type: IntegrationType,
  sent: Record<string, unknown>,
  restored: object,
): { path: string; value: string }[] {
  const out: { path: string; value: string }[] = [];
  for (const path of platformOf(type).secretPaths) {
    if (path === 'username' || path.endsWith('.username')) continue;
    const value = valueAt(restored, path);
    if (valueAt(sent, path) === REDACTED && typeof value === 'string' && value !== REDACTED)
      out.push({ path, value });
  }
  return out;
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

export async function deleteScript(id: number): Promise<Script> {
  const { record } = await storedIntegration(id);
  const payload = await storedPayload(record.type, record.autoBootstrap ?? false, record.config, true);
  return build('delete', payload);
}

function valueAt(config: object, path: string): unknown {
  let cur: unknown = config;
  for (const key of path.split('.'))
    cur = cur && typeof cur === 'object' ? (cur as Record<string, unknown>)[key] : undefined;
  return cur;
}

const ERRORS = {
  400: {
    description:
      'Invalid body, a type this endpoint does not accept, autoBootstrap true, or a value no script can carry safely.',
  },
  401: { description: 'No or an invalid API key.' },
  403: { description: 'The caller lacks APPLICATION_ADMIN.' },
};
const OK = {
  description:
    'The script: JSON `{script, statements}` by default; the script alone as text/plain when the Accept header prefers text/plain.',
  schema: ScriptResponseSchema,
  contentTypes: ['application/json', 'text/plain'],
};
const documentedBody = z
  .object({
    type: z.enum(SQL_TYPES),
    autoBootstrap: z.literal(false),
    config: z.record(z.string(), z.unknown()).describe("The type's config, as for POST /integrations."),
  })
  .meta({ id: 'ScriptRequest' });

export const scriptContracts = {
  'POST /integrations/scripts/initial-create': {
    body: ScriptBodySchema,
    documentedBody,
    bodyFormats: JSON_OR_YAML,
    responses: { 200: OK, ...ERRORS },
  },
  'POST /integrations/scripts/create': {
    body: ScriptBodySchema,
    documentedBody,
    bodyFormats: JSON_OR_YAML,
    responses: { 200: OK, ...ERRORS },
  },
  'POST /integrations/{id}/scripts/edit': {
    params: IdParamsSchema,
    body: ScriptBodySchema,
    documentedBody,
    bodyFormats: JSON_OR_YAML,
    responses: {
      200: OK,
      ...ERRORS,
      404: { description: 'No integration with the id.' },
      409: { description: 'The integration has been deleted.' },
    },
  },
  'POST /integrations/{id}/scripts/delete': {
    params: IdParamsSchema,
    responses: {
      200: OK,
      ...ERRORS,
      404: { description: 'No integration with the id.' },
      409: { description: 'The integration has been deleted.' },
    },
  },
  'POST /integrations/scripts/cleanup': {
    body: ScriptBodySchema,
    documentedBody,
    bodyFormats: JSON_OR_YAML,
    responses: { 200: OK, ...ERRORS },
  },
  'POST /integrations/scripts/post-cleanup': {
    body: ScriptBodySchema,
    documentedBody,
    bodyFormats: JSON_OR_YAML,
    responses: { 200: OK, ...ERRORS },
  },
} satisfies Record<string, RouteContract>;
