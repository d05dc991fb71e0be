/**
 * The platform registry: one line per type. Every type-dependent fact is asked of a type's
 * module (`platformOf(type)`, and `sqlPlatformOf(type)` in `./sql-platforms` for the SQL half);
 * the type enum and the payload union derive from this record. Adding a platform is one folder
 * (`shared/platforms/<type>/`, see `./module.ts` for what it holds) and one line here.
 */
import * as z from 'zod/mini';
import { lazySchema } from '../lazy-schema';
import { withMeta } from '../schema-meta';
import { analyticsWarehouse } from './analytics-warehouse';
import { cloudWarehouse } from './cloud-warehouse';
import { clusterWarehouse } from './cluster-warehouse';
import { datasetWarehouse } from './dataset-warehouse';
import { federatedSql } from './federated-sql';
import { lakehouse } from './lakehouse';
import type { AnyPayload, Claim, PlatformModule, RemoteSupport } from './module';
import { objectStore } from './object-store';
import type { SqlPlatform } from './sql/platform';

const PLATFORMS = {
  ObjectStore: objectStore,
  AnalyticsWarehouse: analyticsWarehouse,
  Lakehouse: lakehouse,
  DatasetWarehouse: datasetWarehouse,
  ClusterWarehouse: clusterWarehouse,
  CloudWarehouse: cloudWarehouse,
  FederatedSql: federatedSql,
} as const;

type Registry = typeof PLATFORMS;
export type IntegrationType = keyof Registry;
export const INTEGRATION_TYPES = Object.keys(PLATFORMS) as [IntegrationType, ...IntegrationType[]];
export const integrationTypeSchema = lazySchema(() => z.enum(INTEGRATION_TYPES));

type PayloadOfModule<M> = M extends { payloadSchema: infer S extends z.ZodMiniType } ? z.output<S> : never;
type InputOfModule<M> = M extends { payloadSchema: infer S extends z.ZodMiniType } ? z.input<S> : never;
export type IntegrationPayload = { [K in IntegrationType]: PayloadOfModule<Registry[K]> }[IntegrationType];
export type IntegrationPayloadInput = { [K in IntegrationType]: InputOfModule<Registry[K]> }[IntegrationType];
type PayloadOf<T extends IntegrationType> = Extract<IntegrationPayload, { type: T }>;

/** A payload of a type with remote objects (it has a config and a connector). */
export type RemotePayload = Extract<IntegrationPayload, { config: unknown }>;
export type RemoteType = RemotePayload['type'];

/** The types whose remote work is SQL (`remote.connector: 'sql'`; their folder has `sql-platform.ts`). */
export type SqlType = {
  [K in IntegrationType]: Registry[K] extends { remote: { connector: 'sql' } } ? K : never;
}[IntegrationType];
export type SqlPayload = PayloadOf<SqlType>;

/**
 * What the OpenAPI document says of a type beyond its schema, from its module, so clients (the
 * console) read the facts instead of learning them from refusals: `x-automatic-setup` (whether
 * autoBootstrap true is accepted), `x-updatable` (whether PUT takes the type), `x-non-editable`
 * (config paths a PUT may not change),
 * `x-required-when-automatic`, `x-host-field` / `x-name-field` (what a list shows),
 * `x-issues-api-key` (the cluster's key is issued by the service; "regenerate" renews it) and
 * `x-scripts` (the script routes that take the type, for a manual setup).
 */
function documentedFacts(m: PlatformModule): Record<string, unknown> {
  return {
    'x-automatic-setup': m.supportsAutoBootstrap,
    'x-updatable': m.updatable,
    'x-non-editable': [...m.nonEditable],
    ...(m.requiredWhenAutomatic ? { 'x-required-when-automatic': [...m.requiredWhenAutomatic] } : {}),
    ...(m.listedAs?.host ? { 'x-host-field': m.listedAs.host } : {}),
    ...(m.listedAs?.name ? { 'x-name-field': m.listedAs.name } : {}),
    ...(m.issuesApiKey ? { 'x-issues-api-key': true } : {}),
    ...(m.remote?.scriptRoutes ? { 'x-scripts': [...m.remote.scriptRoutes] } : {}),
  };
}

/** Strict payload schemas, one per type; an unknown or missing `type` lists the accepted ones. */
function payloadUnion(modules: readonly PlatformModule[]): z.ZodMiniType {
  const types = modules.map((m) => m.type);
  const schemas = modules.map((m) => withMeta(m.payloadSchema, documentedFacts(m))) as unknown as [
    z.ZodMiniObject,
    ...z.ZodMiniObject[],
  ];
  return withMeta(
    z.discriminatedUnion('type', schemas, {
      error: (issue) => (issue.code === 'invalid_union' ? `must be one of ${types.join(', ')}` : undefined),
    }),
    {
      // One component the create and update bodies (JSON and YAML) refer to, not four copies of it.
      id: 'IntegrationPayload',
      description: 'An integration: its type, whether the service sets the platform up, and its config.',
    },
  );
}

/**
 * The create/update body as the API documents and checks it (the seven types), built on first use
 * (ADR 0021): the functions that only read a type's facts (its secrets, its connector) build none
 * of the seven types' schemas. The contracts take it as `IntegrationPayloadSchema` from
 * `./payload-schema.ts`.
 */
export const integrationPayloadSchema = lazySchema(
  () => payloadUnion(Object.values(PLATFORMS)) as z.ZodMiniType<IntegrationPayload, IntegrationPayloadInput>,
);

/**
 * The modules generic code sees: the registry above, plus any a test registers at run time (the
 * fake-type test exercises every generic path with a type the code has never heard of).
 */
const registered = new Map<string, PlatformModule>(
  Object.values(PLATFORMS).map((m) => [m.type, m as PlatformModule]),
);

/** The SQL halves of run-time registered SQL types (the listed types' live in their folders). */
const registeredSql = new Map<string, SqlPlatform>();

/**
 * Adds a module (and, for a SQL type, its SQL half) at run time and returns its removal. Tests
 * only: production types are the ones listed above.
 */
export function registerPlatform(module: PlatformModule, sql?: SqlPlatform): () => void {
  if (registered.has(module.type)) throw new Error(`platform ${module.type} is already registered`);
  registered.set(module.type, module);
  if (sql) registeredSql.set(module.type, sql);
  return () => {
    registered.delete(module.type);
    registeredSql.delete(module.type);
  };
}

/** The SQL half of a run-time registered type, if any (see `./sql-platforms`). */
export function registeredSqlPlatform(type: string): SqlPlatform | undefined {
  return registeredSql.get(type);
}

/** Every registered module, in registry order. */
export function platforms(): PlatformModule[] {
  return [...registered.values()];
}

/** The module of a type (generic code never names a type: it asks its module). */
export function platformOf(type: IntegrationType): PlatformModule {
  const module = registered.get(type);
  if (!module) throw new Error(`no platform module is registered for type ${type}`);
  return module;
}

/** The types whose module says `pick`, in registry order (for messages that list them). */
export function typesWhere(pick: (module: PlatformModule) => boolean): IntegrationType[] {
  return platforms()
    .filter(pick)
    .map((m) => m.type as IntegrationType);
}

/**
 * The schema a body of `type` is parsed with: its module's, so a run-time registered type is
 * understood; an unknown or missing type gets the union's "must be one of …" answer.
 */
export function payloadSchemaFor(body: unknown): z.ZodMiniType<IntegrationPayload> {
  const type = (body as { type?: unknown } | null)?.type;
  const module = typeof type === 'string' ? registered.get(type) : undefined;
  return (module?.payloadSchema ?? integrationPayloadSchema()) as z.ZodMiniType<IntegrationPayload>;
}

/** The remote side of a type, or undefined for types without remote objects. */
export function remoteOf(type: IntegrationType): RemoteSupport<AnyPayload> | undefined {
  return registered.get(type)?.remote;
}

export function isRemotePayload(payload: IntegrationPayload): payload is RemotePayload {
  return remoteOf(payload.type) !== undefined;
}

export function isRemoteType(type: IntegrationType): type is RemoteType {
  return remoteOf(type) !== undefined;
}

export function isSqlType(type: IntegrationType): type is SqlType {
  return remoteOf(type)?.connector === 'sql';
}

/** Uniqueness claims of a payload: each must be unique across all live integrations. */
export function uniquenessClaims(payload: IntegrationPayload): Claim[] {
  return platformOf(payload.type).claims(payload);
}

/** The host identity of a remote payload (one sandbox state per host; most types' claim). */
export function hostOf(payload: RemotePayload): string {
  return (remoteOf(payload.type) as RemoteSupport<AnyPayload>).host(payload);
}

export type { BodyScriptKind, ScriptKind } from './module';
export { REDACTED } from './module';
