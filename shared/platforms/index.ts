/**
 * The platform registry: one line per type. Every type-dependent fact is asked of a type's
 * module (`platformOf(type)`); the type enum and the payload union derive from this record.
 * Adding a platform is one folder (`shared/platforms/<type>/index.ts`) and one line here; a type
 * with remote objects adds one line to `./runtime.ts` too, which names its driver modules (kept
 * out of this registry: API handlers import it, and must not bundle database drivers).
 */
import * as z from 'zod';
import { analyticsWarehouse } from './analytics-warehouse';
import { cloudWarehouse } from './cloud-warehouse';
import { clusterWarehouse } from './cluster-warehouse';
import { datasetWarehouse } from './dataset-warehouse';
import { federatedSql } from './federated-sql';
import { lakehouse } from './lakehouse';
import type { AnyPayload, Claim, PlatformModule, RemoteSupport } from './module';
import { objectStore } from './object-store';

export const PLATFORMS = {
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
export const IntegrationTypeSchema = z.enum(INTEGRATION_TYPES);

type PayloadOfModule<M> = M extends PlatformModule<infer P> ? P : never;
type InputOfModule<M> = M extends { payloadSchema: infer S extends z.ZodType } ? z.input<S> : never;
export type IntegrationPayload = { [K in IntegrationType]: PayloadOfModule<Registry[K]> }[IntegrationType];
export type IntegrationPayloadInput = { [K in IntegrationType]: InputOfModule<Registry[K]> }[IntegrationType];
export type PayloadOf<T extends IntegrationType> = Extract<IntegrationPayload, { type: T }>;

/** A payload of a type with remote objects (it has a config and a connector). */
export type RemotePayload = Extract<IntegrationPayload, { config: unknown }>;
export type RemoteType = RemotePayload['type'];
export type ConfigOf<T extends RemoteType> = PayloadOf<T>['config'];

/** Strict payload schemas, one per type; an unknown or missing `type` lists the accepted ones. */
export function payloadUnion(modules: readonly PlatformModule[]): z.ZodType {
  const types = modules.map((m) => m.type);
  const schemas = modules.map((m) => m.payloadSchema) as unknown as [z.ZodObject, ...z.ZodObject[]];
  return z.discriminatedUnion('type', schemas, {
    error: (issue) => (issue.code === 'invalid_union' ? `must be one of ${types.join(', ')}` : undefined),
  });
}

export const IntegrationPayloadSchema = payloadUnion(Object.values(PLATFORMS)) as z.ZodType<
  IntegrationPayload,
  IntegrationPayloadInput
>;

/** The module of a type (generic code never names a type: it asks its module). */
export function platformOf(type: IntegrationType): PlatformModule {
  return PLATFORMS[type] as PlatformModule;
}

/** The remote side of a type, or undefined for types without remote objects. */
export function remoteOf(type: IntegrationType): RemoteSupport<AnyPayload> | undefined {
  return platformOf(type).remote;
}

export function isRemotePayload(payload: IntegrationPayload): payload is RemotePayload {
  return remoteOf(payload.type) !== undefined;
}

export function isRemoteType(type: IntegrationType): type is RemoteType {
  return remoteOf(type) !== undefined;
}

/** Uniqueness claims of a payload: each must be unique across all live integrations. */
export function uniquenessClaims(payload: IntegrationPayload): Claim[] {
  return platformOf(payload.type).claims(payload);
}

/** The host identity of a remote payload (one sandbox state per host; most types' claim). */
export function hostOf(payload: RemotePayload): string {
  return (remoteOf(payload.type) as RemoteSupport<AnyPayload>).host(payload);
}

/** Types PUT /integrations/{id} accepts. */
export const UPDATABLE_TYPES = INTEGRATION_TYPES.filter((t) => platformOf(t).updatable);

export { REDACTED } from './config-fields';
