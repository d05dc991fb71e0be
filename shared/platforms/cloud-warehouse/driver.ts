/**
 * CloudWarehouse driver (`snowflake-sdk`). The account locator is the host's first labels
 * (`<account>.snowflakecomputing.com`); key pairs authenticate with SNOWFLAKE_JWT; oAuth first
 * obtains an access token by the client-credentials grant (`./oauth`) and opens the session
 * with `authenticator: 'OAUTH'` (External OAuth).
 */
import { createPrivateKey } from 'node:crypto';
import snowflake from 'snowflake-sdk';
import {
  ConnectionFailure,
  type ConnectTarget,
  classifyNetworkError,
  connectTimeoutMs,
  type PlatformDriver,
  withTimeout,
} from '../driver';
import { normalizeIdentifier, quoteIdent, quoteLiteral } from '../sql/quote';
import { fetchAccessToken, type OAuthClientConfig, type OAuthOptions } from './oauth';
import type { CloudSession } from './sql-platform';

// The SDK's own logger writes a file in the working directory (read-only in Lambda) and its
// messages can quote connection details; our classified failures are what we report and log.
snowflake.configure({ logLevel: 'OFF', additionalLogToConsole: false } as Parameters<
  typeof snowflake.configure
>[0]);

function accountOf(host: string): string {
  return host.replace(/\.snowflakecomputing\.com$/i, '');
}

export function classifySnowflakeError(error: unknown): ConnectionFailure {
  const e = error as { code?: string | number; message?: string; cause?: unknown };
  const message = String(e?.message ?? '');
  if (
    ['390100', '390303', '390318'].includes(String(e?.code)) ||
    /incorrect username or password|JWT token is invalid|OAuth access token|authenticat/i.test(message)
  )
    return new ConnectionFailure('authentication', 'authentication');
  const network = classifyNetworkError(e?.cause) ?? classifyNetworkError(error);
  if (network) return new ConnectionFailure(network, 'network');
  if (/ENOTFOUND|getaddrinfo/i.test(message)) return new ConnectionFailure('unreachable', 'network');
  if (/ECONNREFUSED/i.test(message)) return new ConnectionFailure('refused', 'network');
  return new ConnectionFailure('other', 'connect');
}

const escapeLike = (v: string) => v.replace(/([\\%_])/g, '\\$1');

/** How the session authenticates: password, key pair, or an OAuth access token. */
async function authOptions(
  credentials: Record<string, unknown>,
  oauth: OAuthOptions,
): Promise<Partial<snowflake.ConnectionOptions>> {
  const creds = credentials as {
    authenticationType?: string;
    username?: string;
    password?: string;
    privateKey?: string;
    oAuthClientConfig?: OAuthClientConfig;
  };
  if (creds.authenticationType === 'oAuth') {
    if (!creds.oAuthClientConfig) throw new ConnectionFailure('authentication', 'oauth');
    return { authenticator: 'OAUTH', token: await fetchAccessToken(creds.oAuthClientConfig, oauth) };
  }
  if (creds.privateKey !== undefined) {
    let privateKey: string;
    try {
      privateKey = createPrivateKey(creds.privateKey.replaceAll('\\n', '\n'))
        .export({ type: 'pkcs8', format: 'pem' })
        .toString();
    } catch {
      throw new ConnectionFailure(
        'authentication',
        'key',
        'the configured private key is not a readable private key',
      );
    }
    return { username: creds.username ?? '', authenticator: 'SNOWFLAKE_JWT', privateKey };
  }
  return { username: creds.username ?? '', password: creds.password ?? '' };
}

/** A CloudWarehouse driver; `oauth` lets tests use a loopback http token endpoint. */
export function createCloudDriver(oauth: OAuthOptions = {}): PlatformDriver<CloudSession> {
  return {
    isMissingObjectError: (error) =>
      /does not exist|not authorized/i.test(String((error as Error)?.message ?? '')),
    connect: (target) => connectCloud(target, oauth),
  };
}

/** The deployed driver (the folder convention's `driver`). */
export const driver = createCloudDriver();

async function connectCloud(target: ConnectTarget, oauth: OAuthOptions): Promise<CloudSession> {
  const options: snowflake.ConnectionOptions = {
    account: accountOf(target.host),
    accessUrl: `https://${target.host}:${target.port}`,
    role: target.role,
    timeout: connectTimeoutMs(),
    sfRetryMaxLoginRetries: 0,
    ...(await authOptions(target.credentials, oauth)),
  } as snowflake.ConnectionOptions;
  let connection: snowflake.Connection;
  try {
    connection = snowflake.createConnection(options);
  } catch {
    throw new ConnectionFailure('other', 'options');
  }
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
    async close() {
      await new Promise<void>((resolve) => connection.destroy(() => resolve()));
    },
  };
}
