/**
 * Request payloads for integrations: one strict schema per type, the rules that depend on
 * `autoBootstrap`, and the per-type facts the rest of the capability needs (secret fields,
 * host identity, non-editable attributes, delete payloads). Every other module derives from
 * this file; nothing else lists a type's fields.
 */
import * as z from 'zod';
import { AnalyticsWarehouseConfigSchema, AnalyticsWarehouseDeleteSchema } from './analytics-warehouse';
import { CloudWarehouseConfigSchema, CloudWarehouseDeleteSchema } from './cloud-warehouse';
import { ClusterWarehouseConfigSchema, ClusterWarehouseDeleteSchema } from './cluster-warehouse';
import type { IntegrationType } from './common';
import { DatasetWarehouseConfigSchema, parseServiceAccount } from './dataset-warehouse';
import { LakehouseConfigSchema, lakehouseHost } from './lakehouse';
import { ObjectStoreConfigSchema } from './object-store';

export * from './common';

const autoBootstrap = z.boolean();

function addIssue(ctx: z.RefinementCtx, path: (string | number)[], message: string) {
  ctx.addIssue({ code: 'custom', path, message });
}

export const ObjectStorePayloadSchema = z
  .strictObject({ type: z.literal('ObjectStore'), autoBootstrap, config: ObjectStoreConfigSchema })
  .superRefine((p, ctx) => {
    if (p.autoBootstrap) addIssue(ctx, ['autoBootstrap'], 'must be false for ObjectStore');
  });

export const AnalyticsWarehousePayloadSchema = z.strictObject({
  type: z.literal('AnalyticsWarehouse'),
  autoBootstrap,
  config: AnalyticsWarehouseConfigSchema,
});

export const LakehousePayloadSchema = z.strictObject({
  type: z.literal('Lakehouse'),
  autoBootstrap,
  config: LakehouseConfigSchema,
});

export const DatasetWarehousePayloadSchema = z
  .strictObject({ type: z.literal('DatasetWarehouse'), autoBootstrap, config: DatasetWarehouseConfigSchema })
  .superRefine((p, ctx) => {
    if (p.autoBootstrap) addIssue(ctx, ['autoBootstrap'], 'must be false for DatasetWarehouse');
  });

export const ClusterWarehousePayloadSchema = z
  .strictObject({ type: z.literal('ClusterWarehouse'), autoBootstrap, config: ClusterWarehouseConfigSchema })
  .superRefine((p, ctx) => {
    if (p.autoBootstrap && !p.config.initialDatabase) {
      addIssue(ctx, ['config', 'initialDatabase'], 'is required when autoBootstrap is true');
    }
  });

export const CloudWarehousePayloadSchema = z
  .strictObject({ type: z.literal('CloudWarehouse'), autoBootstrap, config: CloudWarehouseConfigSchema })
  .superRefine((p, ctx) => {
    if (p.autoBootstrap) {
      if (!p.config.role) addIssue(ctx, ['config', 'role'], 'is required when autoBootstrap is true');
      if (p.config.authenticationType === 'oAuth')
        addIssue(ctx, ['autoBootstrap'], 'must be false with oAuth authentication');
    } else if (p.config.privilegedConnectArgs !== undefined) {
      addIssue(ctx, ['config', 'privilegedConnectArgs'], 'is only used when autoBootstrap is true');
    }
  });

/** FederatedSql is created with `type` only. */
export const FederatedSqlPayloadSchema = z.strictObject({ type: z.literal('FederatedSql') });

export const IntegrationPayloadSchema = z.discriminatedUnion('type', [
  ObjectStorePayloadSchema,
  AnalyticsWarehousePayloadSchema,
  LakehousePayloadSchema,
  DatasetWarehousePayloadSchema,
  ClusterWarehousePayloadSchema,
  CloudWarehousePayloadSchema,
  FederatedSqlPayloadSchema,
]);
export type IntegrationPayload = z.infer<typeof IntegrationPayloadSchema>;
export type IntegrationPayloadInput = z.input<typeof IntegrationPayloadSchema>;

export type PayloadOf<T extends IntegrationType> = Extract<IntegrationPayload, { type: T }>;
export type ConfigOf<T extends Exclude<IntegrationType, 'FederatedSql'>> = PayloadOf<T>['config'];

/** Types PUT /integrations/{id} accepts (the spec's update list). */
export const UPDATABLE_TYPES = [
  'AnalyticsWarehouse',
  'Lakehouse',
  'DatasetWarehouse',
  'ClusterWarehouse',
  'CloudWarehouse',
] as const satisfies readonly IntegrationType[];

/**
 * Per-type facts. `secretPaths` are dotted paths inside `config`: encrypted at rest and read back
 * as the redaction placeholder (the spec hides usernames with passwords, so credential usernames
 * are listed too). `nonEditable` are config paths a PUT may not change. `deleteSchema` is the
 * privileged-credential body an automatically bootstrapped integration needs for DELETE
 * (`undefined`: DELETE takes no body for this type).
 */
export interface TypeFacts {
  secretPaths: readonly string[];
  /**
   * Secret path → the editable config paths naming where that secret is sent. A PUT (or an edit
   * script request) that sends the placeholder keeps the stored secret only while these are
   * unchanged; otherwise a caller could point the stored secret at a server of their own.
   */
  secretEndpoints?: Readonly<Record<string, readonly string[]>>;
  nonEditable: readonly string[];
  supportsAutoBootstrap: boolean;
  deleteSchema?: z.ZodType;
}

export const TYPE_FACTS: Record<IntegrationType, TypeFacts> = {
  ObjectStore: {
    secretPaths: ['cloudAccessKeyId', 'cloudSecretAccessKey'],
    nonEditable: ['name', 'cloudLocationPath'],
    supportsAutoBootstrap: false,
  },
  AnalyticsWarehouse: {
    secretPaths: ['username', 'password'],
    nonEditable: ['host', 'database', 'schema'],
    supportsAutoBootstrap: true,
    deleteSchema: AnalyticsWarehouseDeleteSchema,
  },
  Lakehouse: {
    secretPaths: ['token', 'oAuthClientConfig.clientSecret'],
    secretEndpoints: { 'oAuthClientConfig.clientSecret': ['oAuthClientConfig.authorityUrl'] },
    nonEditable: ['workspaceUrl', 'catalog'],
    supportsAutoBootstrap: true,
  },
  DatasetWarehouse: {
    secretPaths: ['credential'],
    nonEditable: ['dataset', 'location'],
    supportsAutoBootstrap: false,
  },
  ClusterWarehouse: {
    secretPaths: [
      'username',
      'password',
      'accessKeyId',
      'secretKey',
      'sessionToken',
      'idp.username',
      'idp.password',
    ],
    secretEndpoints: { 'idp.username': ['idp.idpHost'], 'idp.password': ['idp.idpHost'] },
    nonEditable: ['host', 'database'],
    supportsAutoBootstrap: true,
    deleteSchema: ClusterWarehouseDeleteSchema,
  },
  CloudWarehouse: {
    secretPaths: [
      'username',
      'password',
      'privateKey',
      'oAuthClientConfig.clientSecret',
      'oAuthClientConfig.oauthPrivateKey',
    ],
    secretEndpoints: {
      'oAuthClientConfig.clientSecret': ['oAuthClientConfig.authorityUrl'],
      'oAuthClientConfig.oauthPrivateKey': ['oAuthClientConfig.authorityUrl'],
    },
    nonEditable: ['host', 'database'],
    supportsAutoBootstrap: true,
    deleteSchema: CloudWarehouseDeleteSchema,
  },
  FederatedSql: { secretPaths: [], nonEditable: [], supportsAutoBootstrap: false },
};

/**
 * Uniqueness claims of a payload: each must be unique across all live integrations. The host
 * identity per type: `host`; Lakehouse the workspace hostname; DatasetWarehouse the project of
 * the service-account credential; ObjectStore its name and location path (each); FederatedSql
 * one per service.
 */
export function uniquenessClaims(payload: IntegrationPayload): { claim: string; describe: string }[] {
  switch (payload.type) {
    case 'ObjectStore':
      return [
        { claim: `objectstore-name#${payload.config.name}`, describe: `name ${payload.config.name}` },
        {
          claim: `objectstore-path#${payload.config.cloudLocationPath}`,
          describe: `location ${payload.config.cloudLocationPath}`,
        },
      ];
    case 'Lakehouse': {
      const host = lakehouseHost(payload.config);
      return [{ claim: `host#${host}`, describe: `host ${host}` }];
    }
    case 'DatasetWarehouse': {
      const project = parseServiceAccount(payload.config.credential)?.project_id ?? 'unknown';
      return [{ claim: `project#${project}`, describe: `project ${project}` }];
    }
    case 'FederatedSql':
      return [{ claim: 'federatedsql', describe: 'the FederatedSql integration' }];
    default:
      return [{ claim: `host#${payload.config.host}`, describe: `host ${payload.config.host}` }];
  }
}
