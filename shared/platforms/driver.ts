/**
 * What a connector needs from a platform connection, implemented by each real driver and by
 * the sandbox. Connection failures are classified (`ConnectionFailure.reason`) so validation
 * tests can say what went wrong without quoting the driver's raw error.
 */
import { optionalEnv } from '../config/env';
import { refusedInScope } from './egress-scope';
import type { Grantee, PlanObject } from './sql/plan';

export type FailureReason =
  | 'unreachable'
  | 'refused'
  | 'timeout'
  | 'tls'
  | 'authentication'
  | 'database'
  | 'permission'
  /** The address guard refused the host (`./egress.ts`): no connection was made. */
  | 'blocked'
  | 'other';

export class ConnectionFailure extends Error {
  override name = 'ConnectionFailure';
  constructor(
    readonly reason: FailureReason,
    message: string,
    /**
     * A complete, secret-free sentence replacing the generic `describeFailure` text, for
     * failures at a step other than the connection itself (an identity provider, a token
     * endpoint, a cloud API). Built only from fixed text, host names and configured names.
     */
    readonly detail?: string,
  ) {
    super(message);
  }
}

/** A remote object the service creates or relies on. */
export interface RemoteObject {
  kind: 'database' | 'schema' | 'role' | 'group' | 'user' | 'login' | 'catalog';
  name: string;
  /** The database or catalog of a schema (and of T-SQL users and roles). */
  parent?: string;
}

/** Everything needed to open one connection. `credentials` holds the decrypted secrets: never log it. */
export interface ConnectTarget {
  host: string;
  port: number;
  database?: string;
  /** Snowflake-like platforms: the role to use for the session. */
  role?: string;
  /** Lakehouse: the SQL warehouse HTTP path. */
  httpPath?: string;
  connectArgs?: string;
  credentials: Record<string, unknown>;
}

/**
 * What every SQL platform's connection offers the generic connector. A type whose validation
 * checks need more (a warehouse grant, a metastore) declares its own session interface
 * extending this one in its `sql-platform.ts`; its driver and its sandbox rules provide it.
 */
export interface PlatformSession {
  run(statement: string): Promise<void>;
  exists(object: RemoteObject): Promise<boolean>;
  /**
   * Assurance: whether a setup step's effect is still in place — its object exists, its grant or
   * membership holds. Undefined (or absent): the driver cannot tell for this kind of step.
   */
  inPlace?(step: AssuredStep): Promise<boolean | undefined>;
  /**
   * Assurance: the grants and memberships `principal` holds that none of the `planned` steps
   * made (privilege creep), described for people. Undefined (or absent): the driver cannot list
   * them.
   */
  unplannedGrants?(principal: Grantee, planned: readonly AssuredStep[]): Promise<string[] | undefined>;
  close(): Promise<void>;
}

/** A setup step as assurance checks it: what it makes and the statements that make it. */
export interface AssuredStep {
  object: PlanObject;
  statements: readonly string[];
  /** The database its statements run in (the session is connected to it). */
  database?: string;
}

export interface PlatformDriver<S extends PlatformSession = PlatformSession> {
  connect(target: ConnectTarget): Promise<S>;
  /** Whether an error a statement raised means "the object does not exist" (tolerated by removals). */
  isMissingObjectError(error: unknown): boolean;
}

/** The stage's connect timeout (CONNECT_TIMEOUT_MS, default 5 s). */
export function connectTimeoutMs(): number {
  const raw = Number(optionalEnv('CONNECT_TIMEOUT_MS') ?? '5000');
  return Number.isInteger(raw) && raw > 0 ? raw : 5000;
}

/** The message of a refused host: the same for every address class, never naming the address. */
function blockedHostMessage(host: string): string {
  return `${host} is not an address integrations may connect to (never link-local or metadata addresses; loopback and private addresses only where the stage allows them)`;
}

/**
 * Plain-language message for a classified failure; names the host, never credentials. When the
 * address guard refused a connection of this operation, that is the failure, whatever the driver
 * made of the refusal (libraries wrap socket errors their own way), and it names the configured
 * host, never the address it resolved to.
 */
export function describeFailure(reason: FailureReason, host: string, port: number): string {
  if (refusedInScope()) return blockedHostMessage(host);
  switch (reason) {
    case 'unreachable':
      return `could not reach ${host}:${port} (unknown host or network unreachable)`;
    case 'refused':
      return `${host}:${port} refused the connection (nothing is listening on that port)`;
    case 'timeout':
      return `connecting to ${host}:${port} timed out after ${connectTimeoutMs()} ms`;
    case 'tls':
      return `the TLS handshake with ${host}:${port} failed (certificate or protocol mismatch)`;
    case 'authentication':
      return `authentication to ${host}:${port} failed: check the username and credentials`;
    case 'database':
      return `the database or warehouse named in the configuration does not exist on ${host}`;
    case 'permission':
      return `the configured user lacks the permission to connect on ${host}`;
    case 'blocked':
      return blockedHostMessage(host);
    case 'other':
      return `connecting to ${host}:${port} failed`;
  }
}

/** The validation message for a connection failure: its own detail, else the generic text for the target. */
export function failureMessage(failure: ConnectionFailure, host: string, port: number): string {
  return failure.detail ?? describeFailure(failure.reason, host, port);
}

/** Classifies a Node.js network error by its code. */
export function classifyNetworkError(error: unknown): FailureReason | undefined {
  const code = (error as { code?: string })?.code ?? '';
  const message = String((error as Error)?.message ?? '');
  if (code === 'ETARGETBLOCKED' || /ETARGETBLOCKED/.test(message)) return 'blocked';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EHOSTUNREACH' || code === 'ENETUNREACH')
    return 'unreachable';
  if (code === 'ECONNREFUSED' || /ECONNREFUSED/.test(message)) return 'refused';
  if (code === 'ETIMEDOUT' || code === 'ETIMEOUT' || /timed? ?out/i.test(message)) return 'timeout';
  if (/ENOTFOUND|getaddrinfo/.test(message)) return 'unreachable';
  if (
    code.startsWith('ERR_TLS') ||
    code.startsWith('ERR_SSL') ||
    /SSL|TLS|certificate|self.signed/i.test(message)
  )
    return 'tls';
  return undefined;
}

/** Races a promise against the connect timeout. */
export async function withTimeout<T>(promise: Promise<T>, ms = connectTimeoutMs()): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new ConnectionFailure('timeout', 'timeout')), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** The config fields that authenticate a connection (every type's credentials, by name). */
const CREDENTIAL_FIELDS = new Set([
  'authenticationType',
  'username',
  'password',
  'privateKey',
  'token',
  'oAuthClientConfig',
  'idp',
  'databaseUser',
  'accessKeyId',
  'secretKey',
  'sessionToken',
]);

/** A config's credentials, for `ConnectTarget.credentials`. */
export function credentialsOf(config: object): Record<string, unknown> {
  return Object.fromEntries(Object.entries(config).filter(([key]) => CREDENTIAL_FIELDS.has(key)));
}
