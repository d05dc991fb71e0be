/**
 * The sandbox's SQL interpreter: it executes the statement kinds the script builders emit
 * (and nothing else — an unknown statement is a syntax error, so a builder cannot drift from
 * what the sandbox understands) against a `SandboxState`. Three parts: the tokenizer
 * (`sql-tokens.ts`), the state model and its operations (`sql-model.ts`) and the table of
 * statement handlers (`sql-statements.ts`).
 */
import { dialectOf } from '../sql/dialects';
import { SandboxModel } from './sql-model';
import { runStatement } from './sql-statements';
import { tokenize } from './sql-tokens';

export { SandboxSqlError, tokenize } from './sql-tokens';

export class SandboxDb extends SandboxModel {
  execute(sql: string): void {
    if (dialectOf(this.session.dialect).sandbox.ignores?.(sql)) return;
    runStatement(this, tokenize(this.session.dialect, sql));
  }
}
