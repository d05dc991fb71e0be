/**
 * AnalyticsWarehouse driver (`mssql`/tedious). TLS is always on with certificate checks;
 * `connectArgs` may add `trustServerCertificate=true` for platforms with private CAs.
 */
import mssql from 'mssql';
import {
  ConnectionFailure,
  type ConnectTarget,
  classifyNetworkError,
  connectTimeoutMs,
  type PlatformDriver,
  withTimeout,
} from '../driver';
import type { AnalyticsSession } from './sql-platform';

/** Socket errors tedious wraps (ConnectionError → originalError → cause: AggregateError of attempts). */
function socketErrors(error: unknown): unknown[] {
  const original = (error as { originalError?: { cause?: { errors?: unknown[] } } })?.originalError;
  return [original, original?.cause, ...(original?.cause?.errors ?? [])].filter(Boolean);
}

export function classifyMssqlError(error: unknown): ConnectionFailure {
  const e = error as { code?: string; message?: string; originalError?: unknown };
  const message = String(e?.message ?? '');
  for (const inner of socketErrors(error)) {
    const reason = classifyNetworkError(inner);
    if (reason && reason !== 'timeout') return new ConnectionFailure(reason, 'network');
  }
  if (e?.code === 'ELOGIN') return new ConnectionFailure('authentication', 'authentication');
  if (/certificate|SSL|TLS|self.signed/i.test(message)) return new ConnectionFailure('tls', 'tls');
  if (/ENOTFOUND|getaddrinfo|EAI_AGAIN/i.test(message))
    return new ConnectionFailure('unreachable', 'network');
  if (/ECONNREFUSED/i.test(message)) return new ConnectionFailure('refused', 'network');
  if (e?.code === 'ETIMEOUT' || /timeout/i.test(message)) return new ConnectionFailure('timeout', 'timeout');
  return new ConnectionFailure(classifyNetworkError(e?.originalError) ?? 'other', 'connect');
}

/** The deployed driver (the folder convention's `driver`). */
export const driver: PlatformDriver<AnalyticsSession> = {
  isMissingObjectError: (error) => [15151, 3701, 15007].includes((error as { number?: number })?.number ?? 0),
  async connect(target: ConnectTarget): Promise<AnalyticsSession> {
    const creds = target.credentials as { username?: string; password?: string };
    const args = new URLSearchParams(target.connectArgs ?? '');
    const pool = new mssql.ConnectionPool({
      server: target.host,
      port: target.port,
      database: target.database,
      user: creds.username,
      password: creds.password,
      connectionTimeout: connectTimeoutMs(),
      requestTimeout: 60_000,
      pool: { max: 1, min: 0 },
      options: { encrypt: true, trustServerCertificate: args.get('trustServerCertificate') === 'true' },
    });
    pool.on('error', () => undefined);
    try {
      await withTimeout(pool.connect());
    } catch (error) {
      await pool.close().catch(() => undefined);
      throw error instanceof ConnectionFailure ? error : classifyMssqlError(error);
    }
    const one = async (sql: string, name: string) =>
      (await pool.request().input('name', mssql.NVarChar, name).query(sql)).recordset.length > 0;
    return {
      async run(statement) {
        await pool.request().batch(statement);
      },
      async exists(object) {
        if (object.kind === 'schema') return one('SELECT 1 FROM sys.schemas WHERE name = @name', object.name);
        if (object.kind === 'login')
          return one('SELECT 1 FROM sys.sql_logins WHERE name = @name', object.name);
        if (object.kind === 'role')
          return one("SELECT 1 FROM sys.database_principals WHERE name = @name AND type = 'R'", object.name);
        return one("SELECT 1 FROM sys.database_principals WHERE name = @name AND type <> 'R'", object.name);
      },
      async missingBootstrapRights() {
        const r = await pool
          .request()
          .query(
            "SELECT HAS_PERMS_BY_NAME(NULL, 'DATABASE', 'CREATE SCHEMA') AS s, HAS_PERMS_BY_NAME(NULL, 'DATABASE', 'ALTER ANY ROLE') AS r",
          );
        const row = r.recordset[0] as { s?: number; r?: number } | undefined;
        return [...(row?.s ? [] : ['CREATE SCHEMA']), ...(row?.r ? [] : ['ALTER ANY ROLE'])];
      },
      async close() {
        await pool.close().catch(() => undefined);
      },
    };
  },
};
