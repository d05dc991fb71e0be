/**
 * The SQL half of a platform module (`shared/platforms/<type>/sql-platform.ts`): everything the generic SQL
 * connector (`../sql-connector`), the script routes and the sandbox need to know about a SQL
 * type, so none of them names one. See docs/adr/0002-platform-modules.md.
 */
import type { ConnectTarget, PlatformSession } from '../driver';
import type { ValidationStatus, ValidationTest } from '../port';
import type { ChangeSet, ScriptLayouts, SetupPlan } from './plan';
import type { Dialect } from './quote';

/** A validated SQL payload (decrypted), as a type's schema outputs it. */
interface SqlPayloadShape {
  type: string;
  autoBootstrap: boolean;
  config: object;
}

/** What a type's own validation checks see. */
interface CheckContext<P, S extends PlatformSession> {
  payload: P;
  /** True for POST (and a PUT retrying a failed creation); false for an edit. */
  creating: boolean;
  /** The session of the connection test, or undefined when it failed. */
  session: S | undefined;
}

/**
 * What the sandbox can tell a type's checks about the session user (`SandboxRules.session`
 * turns it into the type's own session capabilities).
 */
export interface SandboxProbe {
  /** The host the session is connected to. */
  host: string;
  /** The session user is a pre-existing platform account (an administrator), not a script's user. */
  privileged: boolean;
  /** The session user holds the privilege on the securable, directly or through a role or group. */
  holds(privilege: string, securable: { kind: string; name: string }): boolean;
  /** The session user is a member of the role or group. */
  memberOf(kind: 'role' | 'group', name: string): boolean;
}

/** How the sandbox plays the type. */
interface SandboxRules<S extends PlatformSession> {
  /** The account kind a connection logs in as (`login` on T-SQL platforms, else `user`). */
  readonly account: 'user' | 'login';
  /** The account a connection's credentials log in as. */
  identity(credentials: Record<string, unknown>): string;
  /** The type's session capabilities beyond `PlatformSession`, answered from the sandbox's state. */
  session(probe: SandboxProbe): Omit<S, keyof PlatformSession>;
}

export interface SqlPlatform<
  P extends SqlPayloadShape = SqlPayloadShape,
  S extends PlatformSession = PlatformSession,
> {
  /** Quoting and name folding of every statement (`./quote`). */
  readonly dialect: Dialect;
  /** The connection test: its name, and the result rows it reports (if any). */
  readonly connectionTest: {
    name: string;
    result?(target: ConnectTarget, status: ValidationStatus): unknown[];
  };
  /** Where and as whom the service connects: its own credentials. */
  serviceTarget(payload: P): ConnectTarget;
  /**
   * Where and as whom removal connects with the privileged DELETE credentials. Types whose module
   * has no `deletion` rules take none, leave this out, and tear down as the service itself.
   */
  privilegedTarget?(payload: P, credentials: Record<string, unknown>): ConnectTarget;
  /** The type's own validation tests, run after the connection test (in this order). */
  checks(context: CheckContext<P, S>): Promise<ValidationTest[]>;
  /**
   * The "does not exist" tests automatic setup runs, in this order: each checks the plan steps
   * whose `mustNotExist` names it (`createOnly`: only when creating; an edit never re-creates).
   */
  readonly freshObjectTests: readonly { name: string; createOnly?: boolean }[];
  /** What the service creates on the remote for this config. */
  plan(payload: P): SetupPlan;
  /** How each script kind renders the plan. */
  readonly layouts: ScriptLayouts<P>;
  /** The changes an edit makes: only what the change requires, each with its undo. */
  edit(previous: P, next: P): ChangeSet;
  readonly sandbox: SandboxRules<S>;
}
