/**
 * A generated script: ordered sections of statements, each run on one connection. A section
 * names the database to connect to when it matters (PostgreSQL-family and T-SQL platforms
 * cannot switch databases inside a session: `CREATE DATABASE`/`CREATE LOGIN` run in one
 * database, the schemas in another). Script endpoints render the same sections the drivers
 * execute, so what an operator runs by hand and what automatic setup runs are one list.
 */

export interface ScriptSection {
  /** Database to connect to before running the statements (undefined: the connection's default). */
  database?: string;
  /** Why this section exists, rendered as a comment. Built only from fixed text and quoted names. */
  note: string;
  statements: string[];
}

export interface Script {
  /** Rendered as the first comment line. */
  title: string;
  sections: ScriptSection[];
}

export function statementsOf(script: Script): string[] {
  return script.sections.flatMap((s) => s.statements);
}

/** Drops sections with no statements (an edit that changes nothing remote renders as a comment). */
export function script(title: string, sections: ScriptSection[]): Script {
  return { title, sections: sections.filter((s) => s.statements.length > 0) };
}

/** Comment text may quote names: strip line breaks so a value can never leave the comment. */
function commentLine(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: we are removing control characters
  return `-- ${text.replace(/[\u0000-\u001f\u007f]+/g, ' ')}`;
}

export function renderScript(s: Script): string {
  const lines = [commentLine(s.title)];
  if (s.sections.length === 0) lines.push(commentLine('Nothing to run: no remote change is needed.'));
  for (const section of s.sections) {
    lines.push('');
    lines.push(commentLine(section.note));
    if (section.database !== undefined)
      lines.push(commentLine(`Connect to database ${JSON.stringify(section.database)} first.`));
    for (const statement of section.statements) lines.push(`${statement};`);
  }
  return `${lines.join('\n')}\n`;
}

/** A config that the scripts cannot be built from (e.g. an unreadable private key); a 400 at the edge. */
export class ScriptInputError extends Error {
  override name = 'ScriptInputError';
}
