/** ClusterWarehouse as a SQL platform: how the service connects, what it checks, what it creates. */
import { credentialsOf, type PlatformSession } from '../driver';
import type { SqlPlatform } from '../sql/platform';
import { type BootstrapRightsSession, bootstrapRightsCheck, TEST } from '../validation-tests';
import type { ClusterWarehousePayload } from '.';
import { clusterEdit, clusterLayouts, clusterPlan } from './plan';

/** What the ClusterWarehouse checks ask of a connection beyond the common session. */
export interface ClusterSession extends PlatformSession, BootstrapRightsSession {}

export const platform: SqlPlatform<ClusterWarehousePayload, ClusterSession> = {
  dialect: 'cluster',
  connectionTest: { name: TEST.basicConnection },
  serviceTarget: ({ autoBootstrap, config }) => ({
    host: config.host,
    port: config.port,
    database: autoBootstrap ? config.initialDatabase : config.database,
    connectArgs: config.connectArgs,
    credentials: credentialsOf(config),
  }),
  privilegedTarget(payload, { role: _role, ...credentials }) {
    return { ...this.serviceTarget(payload), database: payload.config.initialDatabase, credentials };
  },
  checks: ({ payload, session }) => bootstrapRightsCheck(payload.autoBootstrap, session),
  freshObjectTests: [
    { name: TEST.databaseDoesNotExist, createOnly: true },
    { name: TEST.impersonationRoleDoesNotExist },
  ],
  plan: clusterPlan,
  layouts: clusterLayouts,
  edit: clusterEdit,
  sandbox: {
    account: 'user',
    identity: (c) => {
      const creds = c as { username?: string; databaseUser?: string; idp?: { username?: string } };
      return creds.username ?? creds.databaseUser ?? creds.idp?.username ?? '';
    },
    session: ({ privileged }) => ({
      missingBootstrapRights: async () => (privileged ? [] : ['CREATEDB', 'CREATEUSER']),
    }),
  },
};
