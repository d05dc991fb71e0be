/**
 * The sandbox as a `PlatformDriver`: connections check the documented triggers and the
 * passwords of users the sandbox knows, then run statements through the interpreter on the
 * host's persisted state.
 *
 * Identity rules: a user, login or key the sandbox created (from a script) must present its
 * own credentials and holds only what was granted to it; any other user is a pre-existing
 * account of the platform, taken as privileged (it may create databases, users and roles).
 */
import { createHash } from 'node:crypto';
import { publicKeyOf } from '../cloud-warehouse/scripts';
import {
  ConnectionFailure,
  type ConnectTarget,
  type PlatformDriver,
  type PlatformSession,
  type RemoteObject,
} from '../driver';
import { DIALECT, type SqlType } from '../scripts';
import { normalizeIdentifier } from '../sql/quote';
import { SandboxDb, SandboxSqlError } from './sql';
import { readState, withState } from './store';

export const UNREACHABLE_SUFFIX = '.unreachable.example';
export const TRIGGER = {
  invalidCredentials: 'invalid-credentials',
  failBootstrap: 'fail-bootstrap',
  failTeardown: 'fail-teardown',
} as const;

/** Every string value in a credential object (nested objects included). */
export function credentialValues(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (value && typeof value === 'object') return Object.values(value).flatMap(credentialValues);
  return [];
}

export function isUnreachable(host: string): boolean {
  return host.toLowerCase().endsWith(UNREACHABLE_SUFFIX);
}

/** The user a connection authenticates as. */
export function identityOf(type: SqlType, credentials: Record<string, unknown>): string {
  const c = credentials as {
    username?: string;
    databaseUser?: string;
    idp?: { username?: string };
    oAuthClientConfig?: { clientId?: string };
  };
  if (type === 'ClusterWarehouse') return c.username ?? c.databaseUser ?? c.idp?.username ?? '';
  if (type === 'Lakehouse') return c.oAuthClientConfig?.clientId ?? 'token-principal';
  return c.username ?? c.oAuthClientConfig?.clientId ?? '';
}

function authenticate(type: SqlType, target: ConnectTarget, user: string): boolean {
  const dialect = DIALECT[type];
  const state = readState(type, target.host);
  const db = new SandboxDb(state, { dialect, user, database: target.database, privileged: false });
  const creds = target.credentials as { password?: string; privateKey?: string };
  const kind = type === 'AnalyticsWarehouse' ? 'login' : 'user';
  const name = normalizeIdentifier(dialect, user);
  if (!db.has(kind, name)) return true;
  const obj = state.objects[db.keyOf(kind, name)];
  const attrs = obj?.attrs ?? {};
  if (attrs.preexisting === true) return true;
  if (typeof creds.password === 'string') return attrs.password === creds.password;
  if (typeof creds.privateKey === 'string') {
    try {
      return attrs.rsa_public_key === publicKeyOf(creds.privateKey);
    } catch {
      return false;
    }
  }
  // Access-key and identity-provider users log in through the cloud's IAM, not a password.
  return attrs.passwordDisabled === true;
}

/** Whether the user was created by a script (and so holds only what was granted to it). */
function isScriptUser(type: SqlType, host: string, user: string): boolean {
  const dialect = DIALECT[type];
  const state = readState(type, host);
  const db = new SandboxDb(state, { dialect, user, privileged: false });
  const kind = type === 'AnalyticsWarehouse' ? 'login' : 'user';
  const name = normalizeIdentifier(dialect, user);
  return db.has(kind, name) && state.objects[db.keyOf(kind, name)]?.attrs.preexisting !== true;
}

/**
 * A pre-existing account that runs statements becomes visible in the sandbox (marked
 * `preexisting`), so statements that name it (group membership, role grants) find it.
 */
async function registerAccount(type: SqlType, host: string, user: string): Promise<void> {
  if (type !== 'ClusterWarehouse' && type !== 'CloudWarehouse') return;
  const dialect = DIALECT[type];
  const name = normalizeIdentifier(dialect, user);
  await withState(type, host, (state) => {
    const key = new SandboxDb(state, { dialect, user: name, privileged: true }).keyOf('user', name);
    state.objects[key] ??= { kind: 'user', name, attrs: { preexisting: true } };
  });
}

export function sandboxDriver(type: SqlType): PlatformDriver {
  const dialect = DIALECT[type];
  return {
    isMissingObjectError: (error) => error instanceof SandboxSqlError && error.code === 'missing',
    async connect(target: ConnectTarget): Promise<PlatformSession> {
      if (isUnreachable(target.host)) throw new ConnectionFailure('unreachable', 'unreachable');
      if (credentialValues(target.credentials).includes(TRIGGER.invalidCredentials))
        throw new ConnectionFailure('authentication', 'authentication');
      const user = identityOf(type, target.credentials);
      if (!authenticate(type, target, user)) throw new ConnectionFailure('authentication', 'authentication');
      const privileged = !isScriptUser(type, target.host, user);
      const database =
        target.database === undefined ? undefined : normalizeIdentifier(dialect, target.database);
      const session = { dialect, user: normalizeIdentifier(dialect, user), database, privileged };
      const view = () => new SandboxDb(readState(type, target.host), session);
      const memberships = (db: SandboxDb) =>
        db.state.members
          .filter((m) => m.endsWith(`|${db.keyOf('user', session.user)}`))
          .map((m) => m.split('|')[0]);
      return {
        async run(statement) {
          if (privileged && user !== '') await registerAccount(type, target.host, user);
          await withState(type, target.host, (state) => new SandboxDb(state, session).execute(statement));
        },
        async exists(object: RemoteObject) {
          const db = view();
          const name = normalizeIdentifier(dialect, object.name);
          const parent =
            object.parent === undefined ? undefined : normalizeIdentifier(dialect, object.parent);
          if (type === 'AnalyticsWarehouse' && object.kind !== 'login')
            return db.has(object.kind, name, parent ?? database ?? '');
          if (type === 'ClusterWarehouse' && object.kind === 'schema') return db.has('schema', name, parent);
          return db.has(object.kind, name, parent);
        },
        async missingBootstrapRights() {
          if (privileged) return [];
          return type === 'AnalyticsWarehouse'
            ? ['CREATE SCHEMA', 'ALTER ANY ROLE']
            : ['CREATEDB', 'CREATEUSER'];
        },
        async canUseWarehouse(warehouse) {
          if (privileged) return true;
          const db = view();
          const roles = memberships(db);
          const wh = `warehouse:${normalizeIdentifier(dialect, warehouse)}`;
          return db.state.grants.some((g) => {
            const [priv, object, grantee] = g.split('|');
            return priv === 'USAGE' && object === wh && roles.includes(grantee);
          });
        },
        async canUseRole(role) {
          if (privileged) return true;
          const db = view();
          return memberships(db).includes(db.keyOf('role', normalizeIdentifier(dialect, role)));
        },
        async metastore() {
          const digest = createHash('sha256').update(target.host).digest('hex');
          const id = `${digest.slice(0, 8)}-${digest.slice(8, 12)}-${digest.slice(12, 16)}-${digest.slice(16, 20)}-${digest.slice(20, 32)}`;
          return { metastoreId: id, name: 'sandbox-metastore', region: 'sandbox' };
        },
        async close() {},
      };
    },
  };
}
