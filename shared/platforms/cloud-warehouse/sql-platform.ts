/** CloudWarehouse as a SQL platform: how the service connects, what it checks, what it creates. */
import { credentialsOf, type PlatformSession } from '../driver';
import type { SqlPlatform } from '../sql/platform';
import { failed, passed, skipped, TEST } from '../validation-tests';
import type { CloudWarehousePayload } from '.';
import { cloudEdit, cloudLayouts, cloudPlan } from './plan';

/** What the CloudWarehouse checks ask of a connection beyond the common session. */
export interface CloudSession extends PlatformSession {
  /** Whether the session user may use the warehouse. */
  canUseWarehouse(warehouse: string): Promise<boolean>;
  /** Whether the session user may assume the role. */
  canUseRole(role: string): Promise<boolean>;
}

const NO_CONNECTION = 'skipped: the connection test failed';

export const platform: SqlPlatform<CloudWarehousePayload, CloudSession> = {
  dialect: 'cloud',
  connectionTest: { name: TEST.basicConnection },
  serviceTarget: ({ autoBootstrap, config }) => ({
    host: config.host,
    port: config.port,
    role: autoBootstrap ? config.role : undefined,
    connectArgs: autoBootstrap ? (config.privilegedConnectArgs ?? config.connectArgs) : config.connectArgs,
    credentials: credentialsOf(config),
  }),
  privilegedTarget(payload, { role, ...credentials }) {
    return { ...this.serviceTarget(payload), role: typeof role === 'string' ? role : undefined, credentials };
  },
  async checks({ payload: { autoBootstrap, config }, creating, session }) {
    const tests = [];
    if (!session) tests.push(skipped(TEST.defaultWarehouse, NO_CONNECTION));
    else if (!autoBootstrap && creating)
      tests.push(skipped(TEST.defaultWarehouse, 'checked with the manual setup below'));
    else
      tests.push(
        (await session.canUseWarehouse(config.warehouse))
          ? passed(TEST.defaultWarehouse)
          : failed(TEST.defaultWarehouse, `the user cannot use warehouse ${config.warehouse}`),
      );
    tests.push(skipped(TEST.rolePrefixUnique, 'table grants are not part of this configuration'));
    if (!autoBootstrap) tests.push(skipped(TEST.privilegedRole, 'manual setup: no privileged role is used'));
    else if (!session) tests.push(skipped(TEST.privilegedRole, NO_CONNECTION));
    else
      tests.push(
        (await session.canUseRole(config.role ?? ''))
          ? passed(TEST.privilegedRole)
          : failed(TEST.privilegedRole, `the user cannot use the privileged role ${config.role ?? ''}`),
      );
    return tests;
  },
  freshObjectTests: [
    { name: TEST.databaseDoesNotExist, createOnly: true },
    { name: TEST.impersonationRoleDoesNotExist },
  ],
  plan: cloudPlan,
  layouts: cloudLayouts,
  edit: cloudEdit,
  sandbox: {
    account: 'user',
    identity: (c) => {
      const creds = c as { username?: string; oAuthClientConfig?: { clientId?: string } };
      return creds.username ?? creds.oAuthClientConfig?.clientId ?? '';
    },
    session: ({ privileged, holds, memberOf }) => ({
      canUseWarehouse: async (warehouse) =>
        privileged || holds('USAGE', { kind: 'warehouse', name: warehouse }),
      canUseRole: async (role) => privileged || memberOf('role', role),
    }),
  },
};
