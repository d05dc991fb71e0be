/** AnalyticsWarehouse as a SQL platform: how the service connects, what it checks, what it creates. */
import type { PlatformSession } from '../driver';
import type { SqlPlatform } from '../sql/platform';
import { failed, passed, skipped, TEST } from '../validation-tests';
import type { AnalyticsWarehousePayload } from '.';
import { analyticsEdit, analyticsLayouts, analyticsPlan } from './plan';

/** What the AnalyticsWarehouse checks ask of a connection beyond the common session. */
export interface AnalyticsSession extends PlatformSession {
  /** Rights the session user lacks for automatic setup (empty when it may bootstrap). */
  missingBootstrapRights(): Promise<string[]>;
}

export const platform: SqlPlatform<AnalyticsWarehousePayload, AnalyticsSession> = {
  dialect: 'tsql',
  connectionTest: { name: TEST.basicConnection },
  serviceTarget: ({ config }) => ({
    host: config.host,
    port: config.port,
    database: config.database,
    connectArgs: config.connectArgs,
    credentials: { username: config.username, password: config.password },
  }),
  privilegedTarget(payload, { role: _role, ...credentials }) {
    return { ...this.serviceTarget(payload), credentials };
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
    { name: TEST.schemaDoesNotExist, createOnly: true },
    { name: TEST.impersonationRoleDoesNotExist },
  ],
  plan: analyticsPlan,
  layouts: analyticsLayouts,
  edit: analyticsEdit,
  sandbox: {
    account: 'login',
    identity: (c) => {
      const creds = c as { username?: string; oAuthClientConfig?: { clientId?: string } };
      return creds.username ?? creds.oAuthClientConfig?.clientId ?? '';
    },
    session: ({ privileged }) => ({
      missingBootstrapRights: async () => (privileged ? [] : ['CREATE SCHEMA', 'ALTER ANY ROLE']),
    }),
  },
};
