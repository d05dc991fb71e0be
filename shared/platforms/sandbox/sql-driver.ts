/**
 * The sandbox as a `PlatformDriver` for any SQL type: connections check the documented triggers
 * and the passwords of users the sandbox knows, then run statements through the interpreter on
 * the host's persisted state. What differs by type comes from its SQL half: the dialect, which
 * account a connection logs in as, and its checks' session capabilities (`SandboxRules`).
 *
 * Identity rules: a user, login or key the sandbox created (from a script) must present its
 * own credentials and holds only what was granted to it; any other account is a pre-existing
 * account of the platform, taken as privileged (it may create databases, users and roles).
 */
import { intEnv } from '../../config/env';
import { publicKeyOf } from '../../crypto/public-key';
import type { SqlType } from '..';
import {
  type AssuredStep,
  ConnectionFailure,
  type ConnectTarget,
  type PlatformDriver,
  type PlatformSession,
  type RemoteObject,
} from '../driver';
import { literalHostAllowed } from '../egress';
import type { Grantee } from '../sql/plan';
import type { SandboxProbe, SqlPlatform } from '../sql/platform';
import { normalizeIdentifier } from '../sql/quote';
import { sqlPlatformOf } from '../sql-platforms';
import { SandboxDb, SandboxSqlError } from './sql';
import { readState, type SandboxState, withState } from './store';

const UNREACHABLE_SUFFIX = '.unreachable.example';
export const TRIGGER = {
  invalidCredentials: 'invalid-credentials',
  failBootstrap: 'fail-bootstrap',
  failCompensation: 'fail-compensation',
  failTeardown: 'fail-teardown',
} as const;

/** Every string value in a credential object (nested objects included). */
export function credentialValues(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (value && typeof value === 'object') return Object.values(value).flatMap(credentialValues);
  return [];
}

/** True the first time a trigger fires on a host (recorded in its state), false afterwards. */
export async function fireOnce(type: SqlType, host: string, trigger: string): Promise<boolean> {
  return withState(type, host, (state) => {
    if (state.fired?.includes(trigger)) return false;
    state.fired = [...(state.fired ?? []), trigger];
    return true;
  });
}

export function isUnreachable(host: string): boolean {
  return host.toLowerCase().endsWith(UNREACHABLE_SUFFIX);
}

/** The account object of `user` in the state, if the sandbox knows it. */
function accountOf(platform: SqlPlatform, state: SandboxState, user: string) {
  const dialect = platform.dialect;
  const db = new SandboxDb(state, { dialect, user, privileged: false });
  const kind = platform.sandbox.account;
  const name = normalizeIdentifier(dialect, user);
  return db.has(kind, name) ? state.objects[db.keyOf(kind, name)] : undefined;
}

function authenticate(
  platform: SqlPlatform,
  target: ConnectTarget,
  user: string,
  state: SandboxState,
): boolean {
  const account = accountOf(platform, state, user);
  if (!account || account.attrs.preexisting === true) return true;
  const creds = target.credentials as { password?: string; privateKey?: string };
  if (typeof creds.password === 'string') return account.attrs.password === creds.password;
  if (typeof creds.privateKey === 'string') {
    try {
      return account.attrs.rsa_public_key === publicKeyOf(creds.privateKey);
    } catch {
      return false;
    }
  }
  // Access-key and identity-provider users log in through the cloud's IAM, not a password.
  return account.attrs.passwordDisabled === true;
}

/** Whether the user was created by a script (and so holds only what was granted to it). */
function isScriptUser(platform: SqlPlatform, state: SandboxState, user: string): boolean {
  const account = accountOf(platform, state, user);
  return account !== undefined && account.attrs.preexisting !== true;
}

/**
 * A pre-existing account that runs statements becomes visible in the sandbox (marked
 * `preexisting`), so statements that name it (group membership, role grants) find it.
 */
async function registerAccount(platform: SqlPlatform, type: SqlType, host: string, user: string) {
  const dialect = platform.dialect;
  const name = normalizeIdentifier(dialect, user);
  const kind = platform.sandbox.account;
  await withState(type, host, (state) => {
    const key = new SandboxDb(state, { dialect, user: name, privileged: true }).keyOf(kind, name);
    state.objects[key] ??= { kind, name, attrs: { preexisting: true } };
  });
}

/** What the sandbox's state says about the session user, for the type's checks. */
function probe(
  platform: SqlPlatform,
  host: string,
  session: { user: string; database?: string; privileged: boolean },
  view: () => SandboxDb,
): SandboxProbe {
  const dialect = platform.dialect;
  const principals = (db: SandboxDb) => {
    const me = db.keyOf(platform.sandbox.account, session.user);
    return [me, ...db.state.members.filter((m) => m.endsWith(`|${me}`)).map((m) => m.split('|')[0])];
  };
  return {
    host,
    privileged: session.privileged,
    holds(privilege, securable) {
      const db = view();
      const object = `${securable.kind}:${normalizeIdentifier(dialect, securable.name)}`;
      const grantees = principals(db);
      return db.state.grants.some((g) => {
        const [priv, on, grantee] = g.split('|');
        return priv === privilege && on === object && grantees.includes(grantee);
      });
    },
    memberOf(kind, name) {
      const db = view();
      return principals(db).includes(db.keyOf(kind, normalizeIdentifier(dialect, name)));
    },
  };
}

type Session = { dialect: SqlPlatform['dialect']; user: string; database?: string; privileged: boolean };

/** The state a step's statements would leave, run as an administrator on a copy (or the error). */
function rehearse(state: SandboxState, session: Session, step: AssuredStep): SandboxState | SandboxSqlError {
  const copy = structuredClone(state);
  const database =
    step.database === undefined ? session.database : normalizeIdentifier(session.dialect, step.database);
  const db = new SandboxDb(copy, { ...session, user: 'assurance', database, privileged: true });
  try {
    for (const statement of step.statements) db.execute(statement);
  } catch (error) {
    if (error instanceof SandboxSqlError) return error;
    throw error;
  }
  return copy;
}

/**
 * A step is in place when running it again would change nothing: its object already exists, its
 * grant or membership is already there (its revoke already done). An object it needs being gone
 * means it is not.
 */
function inPlace(state: SandboxState, session: Session, step: AssuredStep): boolean | undefined {
  const after = rehearse(state, session, step);
  if (after instanceof SandboxSqlError)
    return after.code === 'exists' ? true : after.code === 'missing' ? false : undefined;
  return JSON.stringify(after) === JSON.stringify(state);
}

/** The grants and memberships of `principal` that none of the planned steps makes. */
function unplannedGrants(
  state: SandboxState,
  session: Session,
  principal: Grantee,
  planned: readonly AssuredStep[],
): string[] {
  const db = new SandboxDb(state, { ...session, privileged: true });
  const me = db.keyOf(principal.kind, normalizeIdentifier(session.dialect, principal.name));
  const held = [
    ...state.grants.filter((g) => g.split('|')[2] === me),
    ...state.members.filter((m) => m.endsWith(`|${me}`)),
  ];
  // What the plan's grants and memberships make, rehearsed on the host without any grant.
  let made: SandboxState = { ...structuredClone(state), grants: [], members: [] };
  for (const step of planned) {
    if (step.object.kind !== 'grant' && step.object.kind !== 'membership') continue;
    const after = rehearse(made, session, step);
    if (!(after instanceof SandboxSqlError)) made = after;
  }
  const expected = new Set([...made.grants, ...made.members]);
  const described = (entry: string) => {
    const parts = entry.split('|');
    if (parts.length === 2) return `membership in ${(parts[0] ?? '').replace(':', ' ')}`;
    return `grant ${parts[0]} on ${(parts[1] ?? '').replace(':', ' ')}${parts[3] ? ' with grant option' : ''}`;
  };
  return held.filter((e) => !expected.has(e)).map(described);
}

export function sandboxDriver(type: SqlType): PlatformDriver {
  return {
    isMissingObjectError: (error) => error instanceof SandboxSqlError && error.code === 'missing',
    async connect(target: ConnectTarget): Promise<PlatformSession> {
      if (!literalHostAllowed(target.host)) throw new ConnectionFailure('blocked', 'blocked');
      if (isUnreachable(target.host) || readState(type, target.host).outage === true)
        throw new ConnectionFailure('unreachable', 'unreachable');
      if (credentialValues(target.credentials).includes(TRIGGER.invalidCredentials))
        throw new ConnectionFailure('authentication', 'authentication');
      const platform = await sqlPlatformOf(type);
      const dialect = platform.dialect;
      const user = platform.sandbox.identity(target.credentials);
      const state = readState(type, target.host);
      if (!authenticate(platform, target, user, state))
        throw new ConnectionFailure('authentication', 'authentication');
      const privileged = !isScriptUser(platform, state, user);
      const database =
        target.database === undefined ? undefined : normalizeIdentifier(dialect, target.database);
      const session = { dialect, user: normalizeIdentifier(dialect, user), database, privileged };
      const view = () => new SandboxDb(readState(type, target.host), session);
      return {
        ...platform.sandbox.session(probe(platform, target.host, session, view)),
        async run(statement) {
          // A slow platform, for tests that must act while remote work is under way.
          const delay = intEnv('SANDBOX_STATEMENT_DELAY_MS', 0);
          if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
          if (privileged && user !== '') await registerAccount(platform, type, target.host, user);
          await withState(type, target.host, (s) => new SandboxDb(s, session).execute(statement));
        },
        async inPlace(step) {
          return inPlace(readState(type, target.host), session, step);
        },
        async unplannedGrants(principal, planned) {
          return unplannedGrants(readState(type, target.host), session, principal, planned);
        },
        async exists(object: RemoteObject) {
          const parent =
            object.parent === undefined ? undefined : normalizeIdentifier(dialect, object.parent);
          return view().has(object.kind, normalizeIdentifier(dialect, object.name), parent);
        },
        async close() {},
      };
    },
  };
}
