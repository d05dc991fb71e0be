/** Lakehouse (Databricks-like): a catalog and schemas owned by the service principal. */
import type * as z from 'zod/mini';
import { lazySchema } from '../../lazy-schema';
import { configPayload, definePlatform, hostClaim } from '../module';
import { lakehouseHost, lakehouseSchemas } from './schema';

const lakehousePayloadSchema = lazySchema(() => configPayload('Lakehouse', lakehouseSchemas().config));
export type LakehousePayload = z.output<ReturnType<typeof lakehousePayloadSchema>>;

export const lakehouse = definePlatform<LakehousePayload>()({
  type: 'Lakehouse',
  get payloadSchema() {
    return lakehousePayloadSchema();
  },
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
