/**
 * The scripts of a SQL integration, rendered from its type's setup plan (`./sql/plan.ts`): what
 * each script endpoint returns and what automatic setup, edits and teardown run are the same
 * statements. A script a type does not have is an answer saying so, not an error.
 */
import type { ScriptKind, SqlPayload } from '.';
import { changeScript, layoutFor, noScript, removalOrder, removalScript, setupScript } from './sql/plan';
import type { SqlPlatform } from './sql/platform';
import { type Script, type ScriptSection, script } from './sql/script';
import { sqlPlatformOf, sqlPlatforms } from './sql-platforms';

export type { ScriptKind, SqlPayload };

class ScriptTypeMismatchError extends Error {
  override name = 'ScriptTypeMismatchError';
}

/** Removes exactly what the type's setup plan makes (automatic setup, or both manual steps). */
export function removalScriptOf(platform: SqlPlatform, payload: SqlPayload): Script {
  return removalScript(platform.plan(payload), layoutFor(platform.layouts.delete, payload));
}

/** Only what an edit from `previous` to `next` requires. */
function editScriptOf(platform: SqlPlatform, previous: SqlPayload, next: SqlPayload): Script {
  if (previous.type !== next.type)
    throw new ScriptTypeMismatchError('the type of an integration cannot change');
  return changeScript(platform.edit(previous, next));
}

/** "only A has …" / "only A and B have …" (types whose plan has a second removal step). */
async function onlyTypesWithPostCleanup(): Promise<string> {
  const types = (await sqlPlatforms())
    .filter(({ platform }) => platform.layouts['post-cleanup'])
    .map((t) => t.type);
  return types.length === 1 ? `only ${types[0]} has` : `only ${types.join(', ')} have`;
}

/** The script an endpoint returns (edit needs the configuration in effect). */
export async function scriptFor(
  kind: ScriptKind,
  payload: SqlPayload,
  previous?: SqlPayload,
): Promise<Script> {
  const platform = await sqlPlatformOf(payload.type);
  const { layouts } = platform;
  const plan = platform.plan(payload);
  switch (kind) {
    case 'initial-create': {
      const layout = layouts['initial-create'];
      if (!layout)
        return noScript(
          `${payload.type} initial setup`,
          'this type has a single setup step; run the create script',
        );
      return setupScript(plan, layoutFor(layout, payload));
    }
    case 'create':
      return setupScript(plan, layoutFor(layouts.create ?? layouts.setup, payload));
    case 'edit':
      if (!previous) throw new ScriptTypeMismatchError('an edit script needs the configuration in effect');
      return editScriptOf(platform, previous, payload);
    case 'delete':
      return removalScript(plan, layoutFor(layouts.delete, payload));
    case 'cleanup':
      // A separate cleanup step removes part of what delete removes; without one, it is delete.
      return layouts.cleanup
        ? removalScript(plan, layoutFor(layouts.cleanup, payload), false)
        : removalScript(plan, layoutFor(layouts.delete, payload));
    case 'post-cleanup': {
      const layout = layouts['post-cleanup'];
      if (!layout)
        return noScript(
          `${payload.type} post-cleanup`,
          `${await onlyTypesWithPostCleanup()} a second removal step`,
        );
      return removalScript(plan, layoutFor(layout, payload), false);
    }
  }
}

/**
 * Removes exactly the given steps of a setup (what a failed automatic setup left behind when
 * undoing it failed too), in removal order, one section per connection.
 */
export async function leftoverScriptFor(payload: SqlPayload, steps: readonly string[]): Promise<Script> {
  const platform = await sqlPlatformOf(payload.type);
  const plan = platform.plan(payload);
  const order = removalOrder(plan.steps.filter((s) => steps.includes(s.key))).filter(
    (s) => s.undo.length > 0,
  );
  const title = `${payload.type} cleanup of what a failed setup left behind`;
  if (order.length === 0) return noScript(title, 'nothing is left behind');
  const sections: ScriptSection[] = [];
  for (const step of order) {
    const database = plan.phases[step.phase]?.database;
    const last = sections.at(-1);
    if (last && last.database === database) last.statements.push(...step.undo);
    else
      sections.push({
        ...(database === undefined ? {} : { database }),
        note: 'Run with the privileged account used for the setup.',
        statements: [...step.undo],
      });
  }
  return script(title, sections);
}

/**
 * Recreates exactly the given steps of a setup (what a periodic check found missing), in plan
 * order, one section per connection.
 */
export async function repairScriptFor(payload: SqlPayload, steps: readonly string[]): Promise<Script> {
  const platform = await sqlPlatformOf(payload.type);
  const plan = platform.plan(payload);
  const chosen = plan.steps.filter((s) => steps.includes(s.key));
  const title = `${payload.type} repair: recreate what the last check found missing`;
  if (chosen.length === 0) return noScript(title, 'nothing is missing');
  const sections: ScriptSection[] = [];
  for (const step of chosen) {
    const database = plan.phases[step.phase]?.database;
    const last = sections.at(-1);
    if (last && last.database === database) last.statements.push(...step.create);
    else
      sections.push({
        ...(database === undefined ? {} : { database }),
        note: 'Run with the privileged account used for the setup.',
        statements: [...step.create],
      });
  }
  return script(title, sections);
}
