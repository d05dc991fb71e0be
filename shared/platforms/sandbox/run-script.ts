/**
 * Running a script against the sandbox as an operator would run it by hand: as a privileged
 * administrator, section by section, stopping at the first failing statement.
 *
 *   SANDBOX_DIR=.causeway/sandbox npx tsx shared/platforms/sandbox/run-script.ts ClusterWarehouse db.example.com script.sql
 *
 * The file is a script as the script endpoints render it (text/plain); `-` reads stdin.
 */
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { INTEGRATION_TYPES, type IntegrationType, isSqlType, type SqlType } from '..';
import { normalizeIdentifier } from '../sql/quote';
import type { Script, ScriptSection } from '../sql/script';
import { sqlPlatformOf } from '../sql-platforms';
import { SandboxDb } from './sql';
import { withState } from './store';

export const SANDBOX_OPERATOR = 'sandbox_admin';

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
      await withState(type, host.toLowerCase(), (state) =>
        new SandboxDb(state, { dialect, user: SANDBOX_OPERATOR, database, privileged: true }).execute(
          statement,
        ),
      );
      count++;
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
  if (current.statements.length > 0) sections.push(current);
  return sections;
}

async function main(argv: string[]): Promise<void> {
  const [type, host, file] = argv;
  const sqlTypes = INTEGRATION_TYPES.filter(isSqlType);
  if (!type || !host || !file || !isSqlType(type as IntegrationType)) {
    process.stderr.write(`usage: run-script.ts <${sqlTypes.join('|')}> <host> <file|->\n`);
    process.exit(2);
  }
  const text = readFileSync(file === '-' ? 0 : file, 'utf8');
  const count = await runOnSandbox(type as SqlType, host, parseRenderedScript(text));
  process.stdout.write(`ran ${count} statements on the sandbox host ${host}\n`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main(process.argv.slice(2)).catch((error: Error) => {
    process.stderr.write(`${error.name}: ${error.message}\n`);
    process.exit(1);
  });
}
