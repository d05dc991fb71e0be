/**
 * The setup plan of a SQL platform: what the service creates on a remote, as data. A type's
 * `sql-platform.ts` builds the plan from a config; everything remote reads it:
 * - the script routes and automatic bootstrap render the steps' create statements (`setupScript`,
 *   laid out per script kind by the type's `ScriptLayouts`);
 * - delete and cleanup scripts and teardown render their undo statements (`removalScript`), in
 *   removal order and only for objects the plan creates — never the operator's own accounts;
 * - validation checks that the objects automatic setup is about to create do not exist yet, and
 *   that a manual setup created them (`checkedObjects`).
 *
 * A step creates one object (a database, a role, a grant, a membership …). Its undo statements
 * remove exactly that object. Removal runs in reverse creation order, except that a step marked
 * `undoFirst` is undone before the others (dropping its object releases what later steps hung on
 * it, e.g. privileges inside a database), and a step `removedWith` another step that is undone in
 * the same run is skipped (its object goes with the other: a schema with its database).
 */
import type { RemoteObject } from '../driver';
import { type Dialect, sameIdentifier } from './quote';
import { type Script, type ScriptSection, script } from './script';

/** A securable a grant is made on (`warehouse`, `account`, `database` …), as the platform names it. */
interface Securable {
  kind: string;
  name: string;
  parent?: string;
}

/** Whom a grant or membership names. */
export interface Grantee {
  kind: 'user' | 'login' | 'role' | 'group' | 'principal' | 'public';
  name: string;
}

export type PlanObject =
  | RemoteObject
  /** A grant the plan makes, or (`revoked`) one it takes away, such as PUBLIC's default rights. */
  | { kind: 'grant'; privilege: string; on: Securable; to: Grantee; grantOption?: boolean; revoked?: boolean }
  | { kind: 'membership'; role: Grantee; member: Grantee }
  /** A property the plan sets on an object it does not own (the operator's user's defaults). */
  | { kind: 'setting'; of: Grantee; name: string };

export interface PlanStep {
  /** Unique in the plan and stable across configs (edits, progress records and findings name it). */
  key: string;
  /** The phase its statements run in: the connection (database) of `SetupPlan.phases`. */
  phase: string;
  object: PlanObject;
  create: readonly string[];
  /** Statements removing exactly this step's object (empty: nothing of its own to remove). */
  undo: readonly string[];
  /** A step whose undo removes this step's object too (skipped when both are undone). */
  removedWith?: string;
  /** Undone before the steps it does not depend on (its drop releases what later steps made). */
  undoFirst?: boolean;
  /**
   * The validation test (one of the platform's `freshObjectTests`) that checks, before automatic
   * setup creates the object, that it does not exist yet.
   */
  mustNotExist?: string;
}

export interface SetupPlan {
  /** Each phase's connection: the database to connect to (undefined: the connection's default). */
  phases: Readonly<Record<string, { database?: string }>>;
  steps: readonly PlanStep[];
}

/** How one script kind renders the plan: its title and one section per phase, with a note. */
export interface ScriptLayout<P = unknown> {
  title: string;
  /** A note may depend on the config (who should run the script). */
  sections: readonly { phase: string; note: string | ((payload: P) => string) }[];
}

/**
 * A type's script layouts. `setup` (everything automatic setup runs) and `delete` (everything
 * removal runs) always exist; a type without a separate step leaves the others out:
 * `initial-create` then answers that there is a single setup step, `create` is `setup`,
 * `cleanup` is `delete`, and `post-cleanup` answers that there is no second removal step.
 */
export interface ScriptLayouts<P = unknown> {
  setup: ScriptLayout<P>;
  delete: ScriptLayout<P>;
  'initial-create'?: ScriptLayout<P>;
  create?: ScriptLayout<P>;
  cleanup?: ScriptLayout<P>;
  'post-cleanup'?: ScriptLayout<P>;
}

const IDENTITY_KINDS = new Set(['user', 'login']);

/** A step by key, or undefined. */
export function stepOf(plan: SetupPlan, key: string): PlanStep | undefined {
  return plan.steps.find((s) => s.key === key);
}

/** Whether the step's object is a named remote object (not a grant, membership or setting). */
export function createsObject(step: PlanStep): step is PlanStep & { object: RemoteObject } {
  const kind = step.object.kind;
  return kind !== 'grant' && kind !== 'membership' && kind !== 'setting';
}

/**
 * The objects whose existence proves a completed setup: every object the plan creates except the
 * service's own user or login (the connection that checks them has just logged in as it).
 */
export function checkedObjects(plan: SetupPlan): RemoteObject[] {
  return plan.steps
    .filter(createsObject)
    .flatMap((s) => (IDENTITY_KINDS.has(s.object.kind) ? [] : [s.object]));
}

export function describeObject(object: PlanObject): string {
  switch (object.kind) {
    case 'grant':
      return object.revoked
        ? `revoke of ${object.privilege} on ${object.on.kind} ${qualified(object.on)} from ${object.to.name}`
        : `grant ${object.privilege} on ${object.on.kind} ${qualified(object.on)} to ${object.to.kind} ${object.to.name}`;
    case 'membership':
      return `membership of ${object.member.kind} ${object.member.name} in ${object.role.kind} ${object.role.name}`;
    case 'setting':
      return `setting ${object.name} of ${object.of.kind} ${object.of.name}`;
    default:
      return `${object.kind} ${qualified(object)}`;
  }
}

const qualified = (o: { name: string; parent?: string }) => `${o.parent ? `${o.parent}.` : ''}${o.name}`;

/** A layout applied to one payload: its notes written out. */
export interface PayloadLayout {
  title: string;
  sections: readonly { phase: string; note: string }[];
}

export function layoutFor<P>(layout: ScriptLayout<P>, payload: P): PayloadLayout {
  return {
    title: layout.title,
    sections: layout.sections.map(({ phase, note }) => ({
      phase,
      note: typeof note === 'function' ? note(payload) : note,
    })),
  };
}

/** The sections of a layout, each holding the given statements of its phase. */
function laidOut(plan: SetupPlan, layout: PayloadLayout, statementsOf: (phase: string) => string[]): Script {
  const sections: ScriptSection[] = layout.sections.map(({ phase, note }) => {
    const database = plan.phases[phase]?.database;
    return { ...(database === undefined ? {} : { database }), note, statements: statementsOf(phase) };
  });
  return script(layout.title, sections);
}

/** The create statements of the layout's phases, in plan order. */
export function setupScript(plan: SetupPlan, layout: PayloadLayout): Script {
  return laidOut(plan, layout, (phase) =>
    plan.steps.filter((s) => s.phase === phase).flatMap((s) => [...s.create]),
  );
}

/**
 * The steps to undo, in removal order: the chosen steps reversed, `undoFirst` steps ahead of the
 * rest, without steps removed with another chosen step.
 */
export function removalOrder<S extends Pick<PlanStep, 'key' | 'removedWith' | 'undoFirst'>>(
  chosen: readonly S[],
): S[] {
  const keys = new Set(chosen.map((s) => s.key));
  const reversed = [...chosen].reverse().filter((s) => !(s.removedWith && keys.has(s.removedWith)));
  return [...reversed.filter((s) => s.undoFirst), ...reversed.filter((s) => !s.undoFirst)];
}

/**
 * The undo statements of the layout's phases, in removal order. Every step with something to
 * undo must fall in one of the layout's phases (a layout that would lose one is a bug).
 */
export function removalScript(plan: SetupPlan, layout: PayloadLayout, complete = true): Script {
  const order = removalOrder(plan.steps).filter((s) => s.undo.length > 0);
  const phases = new Set(layout.sections.map((s) => s.phase));
  if (complete) {
    const lost = order.filter((s) => !phases.has(s.phase)).map((s) => s.key);
    if (lost.length > 0) throw new Error(`${layout.title}: no section undoes ${lost.join(', ')}`);
  }
  return laidOut(plan, layout, (phase) => order.filter((s) => s.phase === phase).flatMap((s) => [...s.undo]));
}

/** One change of an edit, with the statements that take it back (a failed edit is rolled back). */
export interface ChangeStep {
  /** Unique in the edit (progress records name it). */
  key: string;
  statements: readonly string[];
  /** Restores the state before the step (secrets it needs are the previous config's). */
  undo: readonly string[];
}

interface ChangeSection {
  database?: string;
  note: string;
  steps: readonly ChangeStep[];
}

/** An edit: sections of change steps. Its script is their statements; its rollback their undo, reversed. */
export interface ChangeSet {
  title: string;
  sections: readonly ChangeSection[];
}

/** A change step (none when it has nothing to run). */
export function change(key: string, statements: readonly string[], undo: readonly string[]): ChangeStep[] {
  return statements.length === 0 ? [] : [{ key, statements, undo }];
}

/** Change steps creating the plan's steps `keys` that it has (each undone by its own undo). */
export function adding(plan: SetupPlan, ...keys: string[]): ChangeStep[] {
  return keys.flatMap((key) => {
    const step = stepOf(plan, key);
    return step ? change(key, step.create, step.undo) : [];
  });
}

/** Change steps removing the (previous) plan's steps `keys` (each restored by its create). */
export function removing(plan: SetupPlan, ...keys: string[]): ChangeStep[] {
  return keys.flatMap((key) => {
    const step = stepOf(plan, key);
    return step ? change(`${key}:previous`, step.undo, step.create) : [];
  });
}

/** A setting an edit can turn on, turn off or rename (impersonation and its role). */
interface NamedSetting {
  enabled: boolean;
  role: string;
}

/**
 * Which change an edit makes to a named setting, told apart in one place for every plan: `on`
 * (it was off), `off` (it was on), `renamed` (on before and after under another name, as the
 * platform compares names), or none.
 */
export function editSetting(
  dialect: Dialect,
  before: NamedSetting,
  after: NamedSetting,
  then: { on(): void; off(): void; renamed(from: string, to: string): void },
): void {
  if (!before.enabled && after.enabled) then.on();
  else if (before.enabled && !after.enabled) then.off();
  else if (before.enabled && after.enabled && !sameIdentifier(dialect, before.role, after.role))
    then.renamed(before.role, after.role);
}

/**
 * A change step removing the (previous) plan's step `key` together with the steps that go with
 * it (a role with its grants): its drop takes them, so taking the drop back recreates them all.
 */
export function droppingWith(plan: SetupPlan, key: string, ...with_: string[]): ChangeStep[] {
  const step = stepOf(plan, key);
  const restore = [key, ...with_].flatMap((k) => stepOf(plan, k)?.create ?? []);
  return change(`${key}:previous`, step?.undo ?? [], restore);
}

export function changeScript(set: ChangeSet): Script {
  return script(
    set.title,
    set.sections.map(({ database, note, steps }) => ({
      ...(database === undefined ? {} : { database }),
      note,
      statements: steps.flatMap((s) => [...s.statements]),
    })),
  );
}

/**
 * A unit of remote work as the connector runs it: a setup step or a change step, with the
 * database it connects to, its statements and their undo.
 */
export interface RunStep {
  key: string;
  database?: string;
  /** What the step creates (setup steps), for messages. */
  object?: PlanObject;
  statements: readonly string[];
  undo: readonly string[];
  removedWith?: string;
  undoFirst?: boolean;
}

export function setupRunSteps(plan: SetupPlan): RunStep[] {
  return plan.steps.map((s) => ({
    key: s.key,
    database: plan.phases[s.phase]?.database,
    object: s.object,
    statements: s.create,
    undo: s.undo,
    ...(s.removedWith ? { removedWith: s.removedWith } : {}),
    ...(s.undoFirst ? { undoFirst: true } : {}),
  }));
}

export function changeRunSteps(set: ChangeSet): RunStep[] {
  return set.sections.flatMap((section) =>
    section.steps.map((s) => ({
      key: s.key,
      database: section.database,
      statements: s.statements,
      undo: s.undo,
    })),
  );
}

/** A script that says there is nothing to run, and why. */
export function noScript(title: string, why: string): Script {
  return { ...script(title, []), title: `${title}: ${why}` };
}
