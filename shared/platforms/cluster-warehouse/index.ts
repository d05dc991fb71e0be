/** ClusterWarehouse (PostgreSQL/Redshift family): a database, groups and schemas; IAM or IdP logins. */
import type * as z from 'zod';
import {
  addIssue,
  configPayload,
  definePlatform,
  EVEN_WITH_OTHER_ISSUES,
  getPath,
  hostClaim,
} from '../module';
import { ClusterWarehouseConfigSchema, ClusterWarehouseDeleteSchema } from './schema';

export const ClusterWarehousePayloadSchema = configPayload(
  'ClusterWarehouse',
  ClusterWarehouseConfigSchema,
).superRefine((p, ctx) => {
  if (p.autoBootstrap === true && !getPath(p, 'config.initialDatabase'))
    addIssue(ctx, ['config', 'initialDatabase'], 'is required when autoBootstrap is true');
}, EVEN_WITH_OTHER_ISSUES);
export type ClusterWarehousePayload = z.output<typeof ClusterWarehousePayloadSchema>;

export const clusterWarehouse = definePlatform<ClusterWarehousePayload>()({
  type: 'ClusterWarehouse',
  payloadSchema: ClusterWarehousePayloadSchema,
  secretPaths: [
    'username',
    'password',
    'accessKeyId',
    'secretKey',
    'sessionToken',
    'idp.username',
    'idp.password',
  ],
  settings: [
    'database',
    'initialDatabase',
    'impersonation',
    'authenticationType',
    'databaseUser',
    'idp.appId',
    'idp.role',
  ],
  nonEditable: ['host', 'database'],
  identityAttributes: ['config.host'],
  supportsAutoBootstrap: true,
  updatable: true,
  deletion: { schema: ClusterWarehouseDeleteSchema },
  claims: (p) => [hostClaim(p.config.host)],
  remote: {
    host: ({ config }) => config.host,
    connector: 'sql',
    scriptRoutes: ['initial-create', 'create', 'edit', 'cleanup', 'post-cleanup'],
  },
});
