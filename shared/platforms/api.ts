/**
 * The script routes: request rules, the edit/delete lookups of the stored integration, content
 * negotiation (text/plain script or JSON), and their OpenAPI contracts (`scriptContracts`).
 */
import * as z from 'zod';
import type { RouteContract } from '../catalog/contract';
import { BadRequestError, ConflictError, HttpError, NotFoundError } from '../edge/errors';
import type { ApiRequest, ApiResult } from '../edge/handler';
import { describeIssues, idParam, parseWith } from '../edge/validation';
import {
  IntegrationPayloadSchema,
  type IntegrationType,
  REDACTED,
  TYPE_FACTS,
} from '../integrations/schemas';
import { decryptSecrets, restorePlaceholders } from '../integrations/secrets';
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

const ScriptBodySchema = z.object({
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

function respond(request: ApiRequest, script: Script): ApiResult {
  const rendered = renderScript(script);
  if (prefersText(request.headers.accept))
    return { body: rendered, contentType: 'text/plain; charset=utf-8' };
  return { body: { script: rendered, statements: statementsOf(script) } satisfies ScriptResponse };
}

function build(kind: ScriptKind, payload: SqlPayload, previous?: SqlPayload): Script {
  try {
    return scriptFor(kind, payload, previous);
  } catch (error) {
    if (error instanceof UnsafeSqlValueError || error instanceof ScriptInputError)
      throw new BadRequestError(`the script cannot be generated: ${error.message}`);
    throw error;
  }
}

/** The body rules of the script endpoints: accepted types, autoBootstrap false, a valid config. */
export function parseScriptBody(kind: Exclude<ScriptKind, 'delete'>, body: unknown): SqlPayload {
  const envelope = parseWith(ScriptBodySchema, body, 'script request');
  const accepted = SCRIPT_TYPES[kind];
  if (!(accepted as readonly string[]).includes(envelope.type))
    throw new BadRequestError(
      `type ${envelope.type} is not accepted here; accepted types: ${accepted.join(', ')}`,
    );
  if (envelope.autoBootstrap !== false)
    throw new BadRequestError('autoBootstrap must be false: scripts are for manual setup');
  const parsed = IntegrationPayloadSchema.safeParse(body);
  if (!parsed.success)
    throw new BadRequestError(`invalid script request: ${describeIssues(parsed.error.issues)}`);
  return parsed.data as SqlPayload;
}

export async function generateScript(
  kind: Exclude<ScriptKind, 'edit' | 'delete'>,
  request: ApiRequest,
): Promise<ApiResult> {
  return respond(request, build(kind, parseScriptBody(kind, request.body)));
}

async function storedIntegration(request: ApiRequest) {
  const { id } = parseWith(IdParamsSchema, request.params, 'path');
  const { getIntegration } = await import('../integrations/repository');
  const record = await getIntegration(Number(id));
  if (!record) throw new NotFoundError(`integration ${id} not found`);
  if (!(SQL_TYPES as readonly string[]).includes(record.type))
    throw new BadRequestError(`integration ${id} is a ${record.type} integration, which has no scripts`);
  if (record.status === 'deleted') throw new ConflictError(`integration ${id} has been deleted`);
  return { id, record };
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
  if (!parsed.success) throw new HttpError(500, 'the stored configuration is not valid');
  return parsed.data as SqlPayload;
}

export async function editScriptFor(request: ApiRequest): Promise<ApiResult> {
  const { id, record } = await storedIntegration(request);
  const envelope = parseWith(ScriptBodySchema, request.body, 'script request');
  if (envelope.type !== record.type)
    throw new BadRequestError(`integration ${id} is a ${record.type} integration; the type cannot change`);
  const previous = await storedPayload(record.type, record.autoBootstrap ?? false, record.config, true);
  const restored = await restorePlaceholders(record.type, envelope.config, record.config);
  const next = parseScriptBody('edit', { ...envelope, config: restored });
  const changed = TYPE_FACTS[record.type].nonEditable.filter(
    (path) => JSON.stringify(valueAt(previous.config, path)) !== JSON.stringify(valueAt(next.config, path)),
  );
  if (changed.length > 0)
    throw new BadRequestError(`these attributes cannot be edited: ${changed.join(', ')}`);
  // The script follows how the integration was set up (the body's autoBootstrap is always false).
  const auto = record.autoBootstrap ?? false;
  const script = build('edit', { ...next, autoBootstrap: auto } as SqlPayload, previous);
  assertNoRestoredSecret(script, restoredSecrets(record.type, envelope.config, next.config));
  return respond(request, script);
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
  for (const path of TYPE_FACTS[type].secretPaths) {
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
    throw new BadRequestError(
      `the edit script sets ${leaking.map((l) => `config.${l.path}`).join(', ')}, sent as the redaction placeholder ${REDACTED}; ` +
        'stored secrets are never returned: send the value itself',
    );
}

export async function deleteScriptFor(request: ApiRequest): Promise<ApiResult> {
  const { record } = await storedIntegration(request);
  const payload = await storedPayload(record.type, record.autoBootstrap ?? false, record.config, true);
  return respond(request, build('delete', payload));
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
const body = z
  .object({
    type: z.enum(SQL_TYPES),
    autoBootstrap: z.literal(false),
    config: z.record(z.string(), z.unknown()).describe("The type's config, as for POST /integrations."),
  })
  .meta({ id: 'ScriptRequest' });
const bodyTypes = ['application/json', 'application/yaml'] as const;

export const scriptContracts: Record<string, RouteContract> = {
  'POST /integrations/scripts/initial-create': { body, bodyTypes, responses: { 200: OK, ...ERRORS } },
  'POST /integrations/scripts/create': { body, bodyTypes, responses: { 200: OK, ...ERRORS } },
  'POST /integrations/{id}/scripts/edit': {
    params: IdParamsSchema,
    body,
    bodyTypes,
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
  'POST /integrations/scripts/cleanup': { body, bodyTypes, responses: { 200: OK, ...ERRORS } },
  'POST /integrations/scripts/post-cleanup': { body, bodyTypes, responses: { 200: OK, ...ERRORS } },
};
