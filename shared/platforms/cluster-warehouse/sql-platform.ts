/** ClusterWarehouse as a SQL platform: how the service connects, what it checks, what it creates. */
import { credentialsOf, type PlatformSession } from '../driver';
import type { SqlPlatform } from '../sql/platform';
import { failed, passed, skipped, TEST } from '../validation-tests';
import type { ClusterWarehousePayload } from '.';
import { clusterEdit, clusterLayouts, clusterPlan } from './plan';

/** What the ClusterWarehouse checks ask of a connection beyond the common session. */
export interface ClusterSession extends PlatformSession {
  /** Rights the session user lacks for automatic setup (empty when it may bootstrap). */
  missingBootstrapRights(): Promise<string[]>;
}

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
  async checks({ payload, session }) {
    const name = TEST.bootstrapUserGrants;
    if (!payload.autoBootstrap)
      return [
        skipped(
          name,
          'not needed: with a manual setup the operator runs the setup script with their own rights',
        ),
      ];
    if (!session) return [skipped(name, 'skipped: the connection test failed')];
    const missing = await session.missingBootstrapRights();
    return [
      missing.length === 0
        ? passed(name)
        : failed(name, `the user lacks rights needed for automatic setup: ${missing.join(', ')}`),
    ];
  },
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
