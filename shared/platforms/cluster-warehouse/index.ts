/** ClusterWarehouse (PostgreSQL/Redshift family): a database, groups and schemas; IAM or IdP logins. */
import * as z from 'zod/mini';
import { lazySchema } from '../../lazy-schema';
import {
  configPayload,
  definePlatform,
  EVEN_WITH_OTHER_ISSUES,
  hostClaim,
  requireWhenAutomatic,
} from '../module';
import { clusterWarehouseSchemas } from './schema';

/** An automatic setup first connects to `initialDatabase` (a manual one never does). */
const AUTOMATIC_NEEDS = ['initialDatabase'] as const;

const clusterWarehousePayloadSchema = lazySchema(() =>
  configPayload('ClusterWarehouse', clusterWarehouseSchemas().config).check(
    z.superRefine((p, ctx) => requireWhenAutomatic(p, ctx, AUTOMATIC_NEEDS), EVEN_WITH_OTHER_ISSUES),
  ),
);
export type ClusterWarehousePayload = z.output<ReturnType<typeof clusterWarehousePayloadSchema>>;

export const clusterWarehouse = definePlatform<ClusterWarehousePayload>()({
  type: 'ClusterWarehouse',
  get payloadSchema() {
    return clusterWarehousePayloadSchema();
  },
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
  requiredWhenAutomatic: AUTOMATIC_NEEDS,
  listedAs: { host: 'host', name: 'database' },
  identityAttributes: ['config.host'],
  supportsAutoBootstrap: true,
  updatable: true,
  deletion: {
    get schema() {
      return clusterWarehouseSchemas().deletion;
    },
  },
  claims: (p) => [hostClaim(p.config.host)],
  remote: {
    host: ({ config }) => config.host,
    connector: 'sql',
    scriptRoutes: ['initial-create', 'create', 'edit', 'cleanup', 'post-cleanup'],
  },
});
