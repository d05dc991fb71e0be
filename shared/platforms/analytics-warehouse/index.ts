/** AnalyticsWarehouse (SQL Server family, T-SQL): a schema and a login; two-step manual setup. */
import type * as z from 'zod/mini';
import { lazySchema } from '../../lazy-schema';
import { configPayload, definePlatform, hostClaim } from '../module';
import { analyticsWarehouseSchemas } from './schema';

const analyticsWarehousePayloadSchema = lazySchema(() =>
  configPayload('AnalyticsWarehouse', analyticsWarehouseSchemas().config),
);
export type AnalyticsWarehousePayload = z.output<ReturnType<typeof analyticsWarehousePayloadSchema>>;

export const analyticsWarehouse = definePlatform<AnalyticsWarehousePayload>()({
  type: 'AnalyticsWarehouse',
  get payloadSchema() {
    return analyticsWarehousePayloadSchema();
  },
  secretPaths: ['username', 'password'],
  settings: ['database', 'schema', 'metadataDelimiters', 'impersonation'],
  nonEditable: ['host', 'database', 'schema'],
  listedAs: { host: 'host', name: 'database' },
  identityAttributes: ['config.host'],
  supportsAutoBootstrap: true,
  updatable: true,
  deletion: {
    get schema() {
      return analyticsWarehouseSchemas().deletion;
    },
    // `{authenticationType: userPassword}` alone is not a credential: a manual integration may send it.
    ignoredManualBody: (body) => Object.keys(body).length === 1 && body.authenticationType === 'userPassword',
    requiredWhenAutomatic: ['username', 'password'],
  },
  claims: (p) => [hostClaim(p.config.host)],
  remote: {
    host: ({ config }) => config.host,
    connector: 'sql',
    scriptRoutes: ['initial-create', 'create', 'edit', 'cleanup', 'post-cleanup'],
  },
});
