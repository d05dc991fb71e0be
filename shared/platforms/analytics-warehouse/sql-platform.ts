/** AnalyticsWarehouse as a SQL platform: how the service connects, what it checks, what it creates. */
import type { PlatformSession } from '../driver';
import type { SqlPlatform } from '../sql/platform';
import { type BootstrapRightsSession, bootstrapRightsCheck, TEST } from '../validation-tests';
import type { AnalyticsWarehousePayload } from '.';
import { analyticsEdit, analyticsLayouts, analyticsPlan } from './plan';

/** What the AnalyticsWarehouse checks ask of a connection beyond the common session. */
export interface AnalyticsSession extends PlatformSession, BootstrapRightsSession {}

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
  checks: ({ payload, session }) => bootstrapRightsCheck(payload.autoBootstrap, session),
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
