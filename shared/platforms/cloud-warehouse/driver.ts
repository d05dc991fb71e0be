/**
 * CloudWarehouse driver (`snowflake-sdk`). The account locator is the host's first labels
 * (`<account>.snowflakecomputing.com`); key pairs authenticate with SNOWFLAKE_JWT. oAuth
 * client-credential flows are not run by this driver (automatic setup is refused with oAuth);
 * their connection test reports that the token exchange is not supported here.
 */
import { createPrivateKey } from 'node:crypto';
import snowflake from 'snowflake-sdk';
import {
  ConnectionFailure,
  type ConnectTarget,
  classifyNetworkError,
  connectTimeoutMs,
  type PlatformDriver,
  type PlatformSession,
  withTimeout,
} from '../driver';
import { normalizeIdentifier, quoteIdent, quoteLiteral } from '../sql/quote';

snowflake.configure({ logLevel: 'ERROR', additionalLogToConsole: false } as Parameters<
  typeof snowflake.configure
>[0]);

function accountOf(host: string): string {
  return host.replace(/\.snowflakecomputing\.com$/i, '');
}

export function classifySnowflakeError(error: unknown): ConnectionFailure {
  const e = error as { code?: string | number; message?: string; cause?: unknown };
  const message = String(e?.message ?? '');
  if (
    String(e?.code) === '390100' ||
    /incorrect username or password|JWT token is invalid|authenticat/i.test(message)
  )
    return new ConnectionFailure('authentication', 'authentication');
  const network = classifyNetworkError(e?.cause) ?? classifyNetworkError(error);
  if (network) return new ConnectionFailure(network, 'network');
  if (/ENOTFOUND|getaddrinfo/i.test(message)) return new ConnectionFailure('unreachable', 'network');
  if (/ECONNREFUSED/i.test(message)) return new ConnectionFailure('refused', 'network');
  return new ConnectionFailure('other', 'connect');
}

const escapeLike = (v: string) => v.replace(/([\\%_])/g, '\\$1');

export const cloudDriver: PlatformDriver = {
  isMissingObjectError: (error) =>
    /does not exist|not authorized/i.test(String((error as Error)?.message ?? '')),
  async connect(target: ConnectTarget): Promise<PlatformSession> {
    const creds = target.credentials as {
      authenticationType?: string;
      username?: string;
      password?: string;
      privateKey?: string;
    };
    if (creds.authenticationType === 'oAuth') throw new ConnectionFailure('authentication', 'oauth');
    const options: snowflake.ConnectionOptions = {
      account: accountOf(target.host),
      accessUrl: `https://${target.host}:${target.port}`,
      username: creds.username ?? '',
      role: target.role,
      timeout: connectTimeoutMs(),
      sfRetryMaxLoginRetries: 0,
      ...(creds.privateKey !== undefined
        ? {
            authenticator: 'SNOWFLAKE_JWT',
            privateKey: createPrivateKey(creds.privateKey.replaceAll('\\n', '\n'))
              .export({ type: 'pkcs8', format: 'pem' })
              .toString(),
          }
        : { password: creds.password ?? '' }),
    };
    const connection = snowflake.createConnection(options);
    try {
      await withTimeout(
        new Promise<void>((resolve, reject) => connection.connect((err) => (err ? reject(err) : resolve()))),
      );
    } catch (error) {
      connection.destroy(() => undefined);
      throw error instanceof ConnectionFailure ? error : classifySnowflakeError(error);
    }
    const query = (sqlText: string) =>
      new Promise<Record<string, unknown>[]>((resolve, reject) =>
        connection.execute({
          sqlText,
          complete: (err, _stmt, rows) =>
            err ? reject(err) : resolve((rows ?? []) as Record<string, unknown>[]),
        }),
      );
    const norm = (v: string) => normalizeIdentifier('cloud', v);
    const show = async (what: string, name: string, scope = '') => {
      const rows = await query(`SHOW ${what} LIKE ${quoteLiteral('cloud', escapeLike(norm(name)))}${scope}`);
      return rows.some((r) => r.name === norm(name));
    };
    return {
      async run(statement) {
        await query(statement);
      },
      async exists(object) {
        if (object.kind === 'database') return show('DATABASES', object.name);
        if (object.kind === 'schema')
          return show('SCHEMAS', object.name, ` IN DATABASE ${quoteIdent('cloud', object.parent ?? '')}`);
        if (object.kind === 'user') return show('USERS', object.name);
        return show('ROLES', object.name);
      },
      missingBootstrapRights: async () => [],
      async canUseWarehouse(warehouse) {
        try {
          await query(`USE WAREHOUSE ${quoteIdent('cloud', warehouse)}`);
          return true;
        } catch {
          return false;
        }
      },
      async canUseRole(role) {
        try {
          await query(`USE ROLE ${quoteIdent('cloud', role)}`);
          return true;
        } catch {
          return false;
        }
      },
      metastore: async () => undefined,
      async close() {
        await new Promise<void>((resolve) => connection.destroy(() => resolve()));
      },
    };
  },
};
