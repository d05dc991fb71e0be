/** AnalyticsWarehouse (SQL Server family, T-SQL): a schema and a login; two-step manual setup. */
import type * as z from 'zod/mini';
import { configPayload, definePlatform, hostClaim } from '../module';
import { AnalyticsWarehouseConfigSchema, AnalyticsWarehouseDeleteSchema } from './schema';

const AnalyticsWarehousePayloadSchema = configPayload('AnalyticsWarehouse', AnalyticsWarehouseConfigSchema);
export type AnalyticsWarehousePayload = z.output<typeof AnalyticsWarehousePayloadSchema>;

export const analyticsWarehouse = definePlatform<AnalyticsWarehousePayload>()({
  type: 'AnalyticsWarehouse',
  payloadSchema: AnalyticsWarehousePayloadSchema,
  secretPaths: ['username', 'password'],
  settings: ['database', 'schema', 'metadataDelimiters', 'impersonation'],
  nonEditable: ['host', 'database', 'schema'],
  listedAs: { host: 'host', name: 'database' },
  identityAttributes: ['config.host'],
  supportsAutoBootstrap: true,
  updatable: true,
  deletion: {
    schema: AnalyticsWarehouseDeleteSchema,
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
