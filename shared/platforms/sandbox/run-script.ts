/**
 * The sandbox as an operator sees it (`npm run --silent cli -- sandbox run-script|show`): running
 * a script as the operator would run it by hand — as a privileged administrator, section by
 * section, stopping at the first failing statement — and listing what exists on a host.
 */
import type { SqlType } from '..';
import { normalizeIdentifier } from '../sql/quote';
import type { Script, ScriptSection } from '../sql/script';
import { sqlPlatformOf } from '../sql-platforms';
import { SandboxDb } from './sql';
import { readState, withState } from './store';

const SANDBOX_OPERATOR = 'sandbox_admin';

/** A statement the sandbox refused, named by its number and first words (never its literals). */
class SandboxStatementError extends Error {
  override name = 'SandboxStatementError';
}

/** Executes every statement of the script on the sandbox host; throws on the first failure. */
export async function runOnSandbox(
  type: SqlType,
  host: string,
  script: Script | ScriptSection[],
): Promise<number> {
  const sections = Array.isArray(script) ? script : script.sections;
  const { dialect } = await sqlPlatformOf(type);
  let count = 0;
  for (const section of sections) {
    const database =
      section.database === undefined ? undefined : normalizeIdentifier(dialect, section.database);
    for (const statement of section.statements) {
      count++;
      try {
        await withState(type, host.toLowerCase(), (state) =>
          new SandboxDb(state, { dialect, user: SANDBOX_OPERATOR, database, privileged: true }).execute(
            statement,
          ),
        );
      } catch (error) {
        const words = statement.split(/\s+/).slice(0, 3).join(' ');
        throw new SandboxStatementError(
          `statement ${count} (${words} …) failed: ${(error as Error).message}`,
        );
      }
    }
  }
  return count;
}

/** Reads a rendered script back into sections (statements end with `;` at the end of a line). */
export function parseRenderedScript(text: string): ScriptSection[] {
  const sections: ScriptSection[] = [];
  let current: ScriptSection = { note: '', statements: [] };
  let pending = '';
  for (const line of text.split('\n')) {
    const connect = /^-- Connect to database (".*") first\.$/.exec(line);
    if (connect?.[1]) {
      if (current.statements.length > 0) sections.push(current);
      current = { note: '', statements: [], database: JSON.parse(connect[1]) as string };
      continue;
    }
    if (line.startsWith('--') || (line.trim() === '' && pending === '')) continue;
    pending = pending ? `${pending}\n${line}` : line;
    if (pending.endsWith(';')) {
      current.statements.push(pending.slice(0, -1));
      pending = '';
    }
  }
  // A last statement without its semicolon still runs (never silently skipped).
  if (pending.trim() !== '') current.statements.push(pending.trim());
  if (current.statements.length > 0) sections.push(current);
  return sections;
}

/**
 * What exists on a sandbox host, one object per line: objects (`database service_db`, marked
 * when they are a pre-existing account), grants and memberships, sorted.
 */
export function describeHost(type: SqlType, host: string): string[] {
  const state = readState(type, host.toLowerCase());
  const name = (key: string) => key.replace(':', ' ');
  const objects = Object.values(state.objects).map(
    (o) =>
      `${o.kind} ${o.parent ? `${o.parent}.` : ''}${o.name}${o.attrs.preexisting === true ? ' (pre-existing account)' : ''}`,
  );
  const grants = state.grants.map((g) => {
    const [privilege, on = '', to = '', option] = g.split('|');
    return `grant ${privilege} on ${name(on)} to ${name(to)}${option ? ' with grant option' : ''}`;
  });
  const members = state.members.map((m) => {
    const [role = '', member = ''] = m.split('|');
    return `member ${name(member)} of ${name(role)}`;
  });
  return [...objects.sort(), ...grants.sort(), ...members.sort()];
}
