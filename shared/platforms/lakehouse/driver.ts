/**
 * Lakehouse driver (`@databricks/sql`): Thrift over HTTPS to the SQL warehouse at `httpPath`,
 * with a personal access token or OAuth machine-to-machine credentials. Telemetry is off.
 */
import { DBSQLClient, DBSQLLogger, LogLevel } from '@databricks/sql';
import {
  ConnectionFailure,
  type ConnectTarget,
  classifyNetworkError,
  connectTimeoutMs,
  type PlatformDriver,
  withTimeout,
} from '../driver';
import { normalizeIdentifier, quoteIdent } from '../sql/quote';
import type { LakehouseSession } from './sql-platform';

export function classifyLakehouseError(error: unknown): ConnectionFailure {
  const message = String((error as Error)?.message ?? '');
  const network = classifyNetworkError(error) ?? classifyNetworkError((error as { cause?: unknown })?.cause);
  if (network) return new ConnectionFailure(network, 'network');
  if (/401|403|Unauthorized|Forbidden|invalid.*token|invalid_client/i.test(message))
    return new ConnectionFailure('authentication', 'authentication');
  if (/ENOTFOUND|getaddrinfo/i.test(message)) return new ConnectionFailure('unreachable', 'network');
  if (/ECONNREFUSED/i.test(message)) return new ConnectionFailure('refused', 'network');
  return new ConnectionFailure('other', 'connect');
}

/** The deployed driver (the folder convention's `driver`). */
export const driver: PlatformDriver<LakehouseSession> = {
  isMissingObjectError: (error) => /NOT_FOUND|does not exist/i.test(String((error as Error)?.message ?? '')),
  async connect(target: ConnectTarget): Promise<LakehouseSession> {
    const creds = target.credentials as {
      token?: string;
      oAuthClientConfig?: { clientId: string; clientSecret: string };
    };
    // The driver logs connection errors (with hosts) to stdout by default; keep only its errors.
    const client = new DBSQLClient({ logger: new DBSQLLogger({ level: LogLevel.error }) });
    client.on('error', () => undefined);
    const auth = creds.oAuthClientConfig
      ? {
          authType: 'databricks-oauth' as const,
          oauthClientId: creds.oAuthClientConfig.clientId,
          oauthClientSecret: creds.oAuthClientConfig.clientSecret,
        }
      : { token: creds.token ?? '' };
    let session: Awaited<ReturnType<DBSQLClient['openSession']>>;
    try {
      await withTimeout(
        (async () => {
          await client.connect({
            host: target.host,
            port: target.port,
            path: target.httpPath ?? '',
            socketTimeout: connectTimeoutMs(),
            telemetryEnabled: false,
            ...auth,
          } as Parameters<DBSQLClient['connect']>[0]);
          session = await client.openSession();
        })(),
      );
    } catch (error) {
      await client.close().catch(() => undefined);
      throw error instanceof ConnectionFailure ? error : classifyLakehouseError(error);
    }
    const query = async (sql: string) => {
      // biome-ignore lint/style/noNonNullAssertion: assigned once the connection opened
      const op = await session!.executeStatement(sql);
      const rows = (await op.fetchAll()) as Record<string, unknown>[];
      await op.close();
      return rows;
    };
    const norm = (v: string) => normalizeIdentifier('lakehouse', v).toLowerCase();
    return {
      async run(statement) {
        await query(statement);
      },
      async exists(object) {
        if (object.kind === 'catalog')
          return (await query('SHOW CATALOGS')).some(
            (r) => String(Object.values(r)[0]).toLowerCase() === norm(object.name),
          );
        const rows = await query(`SHOW SCHEMAS IN ${quoteIdent('lakehouse', object.parent ?? '')}`);
        return rows.some((r) => String(Object.values(r)[0]).toLowerCase() === norm(object.name));
      },
      async metastore() {
        try {
          const rows = await query('SELECT current_metastore() AS metastoreId');
          return rows[0] ? { metastoreId: rows[0].metastoreId } : undefined;
        } catch {
          return undefined;
        }
      },
      async close() {
        // biome-ignore lint/style/noNonNullAssertion: assigned once the connection opened
        await session!.close().catch(() => undefined);
        await client.close().catch(() => undefined);
      },
    };
  },
};
