/** CloudWarehouse (Snowflake-like): a role, a database and schemas; key-pair or OAuth logins. */
import * as z from 'zod/mini';
import { lazySchema } from '../../lazy-schema';
import {
  addIssue,
  configPayload,
  definePlatform,
  EVEN_WITH_OTHER_ISSUES,
  getPath,
  hostClaim,
  requireWhenAutomatic,
} from '../module';
import { cloudWarehouseSchemas } from './schema';

/** An automatic setup acts as `role` (a manual one is set up by the operator). */
const AUTOMATIC_NEEDS = ['role'] as const;

const cloudWarehousePayloadSchema = lazySchema(() =>
  configPayload('CloudWarehouse', cloudWarehouseSchemas().config).check(
    z.superRefine((p, ctx) => {
      if (p.autoBootstrap === true) {
        requireWhenAutomatic(p, ctx, AUTOMATIC_NEEDS);
        if (getPath(p, 'config.authenticationType') === 'oAuth')
          addIssue(ctx, ['autoBootstrap'], 'must be false with oAuth authentication');
      } else if (p.autoBootstrap === false && getPath(p, 'config.privilegedConnectArgs') !== undefined) {
        addIssue(ctx, ['config', 'privilegedConnectArgs'], 'is only used when autoBootstrap is true');
      }
    }, EVEN_WITH_OTHER_ISSUES),
  ),
);
export type CloudWarehousePayload = z.output<ReturnType<typeof cloudWarehousePayloadSchema>>;

export const cloudWarehouse = definePlatform<CloudWarehousePayload>()({
  type: 'CloudWarehouse',
  get payloadSchema() {
    return cloudWarehousePayloadSchema();
  },
  secretPaths: [
    'username',
    'password',
    'privateKey',
    'oAuthClientConfig.clientSecret',
    'oAuthClientConfig.oauthPrivateKey',
  ],
  settings: [
    'warehouse',
    'database',
    'role',
    'audit',
    'impersonation',
    'userRolePattern',
    'workspaces',
    'lineage',
    'authenticationType',
    'oAuthClientConfig.provider',
    'oAuthClientConfig.clientId',
    'oAuthClientConfig.useCertificate',
    'oAuthClientConfig.publicCertificateThumbprint',
    'oAuthClientConfig.resource',
  ],
  nonEditable: ['host', 'database'],
  requiredWhenAutomatic: AUTOMATIC_NEEDS,
  listedAs: { host: 'host', name: 'database' },
  identityAttributes: ['config.host'],
  supportsAutoBootstrap: true,
  updatable: true,
  deletion: {
    get schema() {
      return cloudWarehouseSchemas().deletion;
    },
  },
  claims: (p) => [hostClaim(p.config.host)],
  remote: {
    host: ({ config }) => config.host,
    connector: 'sql',
    scriptRoutes: ['initial-create', 'create', 'edit', 'cleanup', 'post-cleanup'],
  },
});
