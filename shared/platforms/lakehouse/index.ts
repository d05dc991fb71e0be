/** Lakehouse (Databricks-like): a catalog and schemas owned by the service principal. */
import type * as z from 'zod/mini';
import { configPayload, definePlatform, hostClaim } from '../module';
import { LakehouseConfigSchema, lakehouseHost } from './schema';

const LakehousePayloadSchema = configPayload('Lakehouse', LakehouseConfigSchema);
export type LakehousePayload = z.output<typeof LakehousePayloadSchema>;

export const lakehouse = definePlatform<LakehousePayload>()({
  type: 'Lakehouse',
  payloadSchema: LakehousePayloadSchema,
  secretPaths: ['token', 'oAuthClientConfig.clientSecret'],
  settings: [
    'audit',
    'catalog',
    'groupPattern',
    'authenticationType',
    'oAuthClientConfig.clientId',
    'oAuthClientConfig.scope',
  ],
  nonEditable: ['workspaceUrl', 'catalog'],
  listedAs: { host: 'workspaceUrl', name: 'catalog' },
  identityAttributes: ['config.workspaceUrl'],
  supportsAutoBootstrap: true,
  updatable: true,
  claims: (p) => [hostClaim(lakehouseHost(p.config))],
  remote: {
    host: ({ config }) => lakehouseHost(config),
    connector: 'sql',
    scriptRoutes: ['create', 'edit'],
  },
});
