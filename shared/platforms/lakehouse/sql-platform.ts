/** Lakehouse as a SQL platform: how the service connects, what it checks, what it creates. */
import { createHash } from 'node:crypto';
import { credentialsOf, type PlatformSession } from '../driver';
import type { SqlPlatform } from '../sql/platform';
import { failed, passed, TEST } from '../validation-tests';
import type { LakehousePayload } from '.';
import { lakehouseEdit, lakehouseLayouts, lakehousePlan } from './plan';
import { lakehouseHost } from './schema';

/** What the Lakehouse checks ask of a connection beyond the common session. */
export interface LakehouseSession extends PlatformSession {
  /** The metastore the workspace is attached to. */
  metastore(): Promise<Record<string, unknown> | undefined>;
}

const NO_METASTORE = 'the metastore information could not be obtained';

export const platform: SqlPlatform<LakehousePayload, LakehouseSession> = {
  dialect: 'lakehouse',
  connectionTest: {
    name: TEST.lakehouseBasicConnection,
    result: (target, status) => [{ host: target.host, httpPath: target.httpPath, status }],
  },
  serviceTarget: ({ config }) => ({
    host: lakehouseHost(config),
    port: config.port,
    httpPath: config.httpPath,
    credentials: credentialsOf(config),
  }),
  async checks({ session }) {
    if (!session) return [failed(TEST.metastore, `${NO_METASTORE}: no connection`)];
    const metastore = await session.metastore();
    return [
      metastore
        ? passed(TEST.metastore, undefined, [metastore])
        : failed(TEST.metastore, `${NO_METASTORE}: is the workspace attached to a metastore?`),
    ];
  },
  freshObjectTests: [{ name: TEST.catalogDoesNotExist, createOnly: true }],
  plan: lakehousePlan,
  layouts: lakehouseLayouts,
  edit: lakehouseEdit,
  sandbox: {
    account: 'user',
    identity: (c) =>
      (c as { oAuthClientConfig?: { clientId?: string } }).oAuthClientConfig?.clientId ?? 'token-principal',
    session: ({ host }) => ({
      // A stable, made-up metastore per workspace host.
      async metastore() {
        const d = createHash('sha256').update(host).digest('hex');
        const id = `${d.slice(0, 8)}-${d.slice(8, 12)}-${d.slice(12, 16)}-${d.slice(16, 20)}-${d.slice(20, 32)}`;
        return { metastoreId: id, name: 'sandbox-metastore', region: 'sandbox' };
      },
    }),
  },
};
