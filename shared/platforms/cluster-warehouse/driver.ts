/**
 * ClusterWarehouse driver (`pg`; the PostgreSQL wire protocol that Redshift speaks). Catalog
 * queries use views both dialects have (`pg_database`, `pg_user`, `pg_group`, `pg_namespace`).
 * `connectArgs` accepts `sslmode=disable|require|verify-full` (default verify-full: TLS with
 * certificate checks). Access-key and idp authentication first obtain temporary database
 * credentials from the cloud (`./iam-auth`: GetClusterCredentials / GetCredentials, after the
 * SAML federation for idp), then connect as the returned user with the returned password.
 */
import pg from 'pg';
import {
  ConnectionFailure,
  type ConnectTarget,
  classifyNetworkError,
  connectTimeoutMs,
  type PlatformDriver,
  withTimeout,
} from '../driver';
import { normalizeIdentifier } from '../sql/quote';
import { type CatalogQuery, clusterInPlace, clusterUnplannedGrants } from './assurance';
import type { AccessKeyCredentials, ClusterAuthOptions, DatabaseLogin, IdpCredentials } from './iam-auth';
import type { ClusterSession } from './sql-platform';

function sslOption(connectArgs: string | undefined): pg.ClientConfig['ssl'] {
  const mode = new URLSearchParams(connectArgs ?? '').get('sslmode') ?? 'verify-full';
  if (mode === 'disable') return false;
  if (mode === 'require') return { rejectUnauthorized: false };
  return { rejectUnauthorized: true };
}

export function classifyPgError(error: unknown): ConnectionFailure {
  const code = (error as { code?: string })?.code;
  const message = String((error as Error)?.message ?? '');
  if (code === '28P01' || code === '28000') return new ConnectionFailure('authentication', 'authentication');
  if (code === '3D000') return new ConnectionFailure('database', 'database');
  if (code === '42501') return new ConnectionFailure('permission', 'permission');
  if (/does not support SSL|SSL|certificate/i.test(message)) return new ConnectionFailure('tls', 'tls');
  if (/timeout/i.test(message)) return new ConnectionFailure('timeout', 'timeout');
  return new ConnectionFailure(classifyNetworkError(error) ?? 'other', 'connect');
}

/** The user and password pg presents: configured, or temporary ones from the cloud. */
async function loginFor(target: ConnectTarget, options: ClusterAuthOptions): Promise<DatabaseLogin> {
  const creds = target.credentials as { authenticationType?: string; username?: string; password?: string };
  const where = { host: target.host, database: target.database, connectArgs: target.connectArgs };
  switch (creds.authenticationType ?? 'userPassword') {
    case 'userPassword':
      return { user: creds.username ?? '', password: creds.password ?? '' };
    case 'accessKey':
      return (await import('./iam-auth')).accessKeyLogin(
        target.credentials as unknown as AccessKeyCredentials,
        where,
        options,
      );
    case 'idp':
      return (await import('./iam-auth')).idpLogin(
        target.credentials as unknown as IdpCredentials,
        where,
        options,
      );
    default:
      throw new ConnectionFailure('authentication', 'unsupported');
  }
}

/** A ClusterWarehouse driver; `options` point the credential exchange at loopback fakes in tests. */
export function createClusterDriver(options: ClusterAuthOptions = {}): PlatformDriver<ClusterSession> {
  return {
    isMissingObjectError: (error) =>
      ['3D000', '42704', '3F000'].includes((error as { code?: string })?.code ?? ''),
    connect: (target) => connectCluster(target, options),
  };
}

/** The deployed driver (the folder convention's `driver`). */
export const driver = createClusterDriver();

async function connectCluster(target: ConnectTarget, options: ClusterAuthOptions): Promise<ClusterSession> {
  const login = await loginFor(target, options);
  const client = new pg.Client({
    host: target.host,
    port: target.port,
    database: target.database ?? 'dev',
    user: login.user,
    password: login.password,
    ssl: sslOption(target.connectArgs),
    connectionTimeoutMillis: connectTimeoutMs(),
    application_name: 'causeway',
  });
  client.on('error', () => undefined);
  try {
    await withTimeout(client.connect());
  } catch (error) {
    await client.end().catch(() => undefined);
    throw error instanceof ConnectionFailure ? error : classifyPgError(error);
  }
  const one = async (sql: string, value: string) => ((await client.query(sql, [value])).rowCount ?? 0) > 0;
  const norm = (v: string) => normalizeIdentifier('cluster', v);
  const catalog: CatalogQuery = async (sql, params) => (await client.query(sql, params)).rows;
  return {
    async run(statement) {
      await client.query(statement);
    },
    inPlace: (step) => clusterInPlace(catalog, step, norm),
    unplannedGrants: (principal, planned) => clusterUnplannedGrants(catalog, principal, planned, norm),
    async exists(object) {
      switch (object.kind) {
        case 'database':
          return one('SELECT 1 FROM pg_database WHERE datname = $1', norm(object.name));
        case 'schema':
          return one('SELECT 1 FROM pg_namespace WHERE nspname = $1', norm(object.name));
        case 'group':
        case 'role':
          return one('SELECT 1 FROM pg_group WHERE groname = $1', norm(object.name));
        default:
          return one('SELECT 1 FROM pg_user WHERE usename = $1', norm(object.name));
      }
    },
    async missingBootstrapRights() {
      const me = await client.query<{ usesuper: boolean; usecreatedb: boolean }>(
        'SELECT usesuper, usecreatedb FROM pg_user WHERE usename = current_user',
      );
      const row = me.rows[0];
      if (row?.usesuper) return [];
      const missing = row?.usecreatedb ? [] : ['CREATEDB'];
      try {
        const r = await client.query<{ rolcreaterole: boolean }>(
          'SELECT rolcreaterole FROM pg_roles WHERE rolname = current_user',
        );
        if (!r.rows[0]?.rolcreaterole) missing.push('CREATEUSER');
      } catch {
        missing.push('CREATEUSER');
      }
      return missing;
    },
    async close() {
      await client.end().catch(() => undefined);
    },
  };
}
