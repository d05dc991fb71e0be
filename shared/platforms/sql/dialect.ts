/**
 * What a SQL dialect module holds: everything the service needs to write that dialect (how the
 * platform folds and compares unquoted names, how identifiers and string literals are quoted and
 * escaped) and everything the sandbox needs to read and run it (its tokenizer's rules, where its
 * kinds of objects live, the statement forms only it has). Generic SQL code (`./quote.ts`, the
 * plans) and the sandbox (`../sandbox/`) read a dialect through this interface and branch on no
 * dialect's name; a new dialect is one module in `./dialects/` and one line in its registry.
 */
import type { SandboxModel } from '../sandbox/sql-model';
import type { TokenCursor } from '../sandbox/sql-tokens';

export class UnsafeSqlValueError extends Error {
  override name = 'UnsafeSqlValueError';
}

/** Whether an object kind lives in the account (`global`) or inside the session's database. */
type Scope = 'global' | 'database';

export interface SqlDialect {
  /** The plain identifier (`compute_wh`) as the platform stores it: unquoted names are folded. */
  foldPlain(value: string): string;
  /** A stored name in the dialect's identifier quotes, the closing quote escaped. */
  quoteName(name: string): string;
  /**
   * A string literal with its quote (and escape) characters escaped; a value the dialect cannot
   * represent safely is an `UnsafeSqlValueError` naming `what`.
   */
  quoteLiteral(value: string, what: string): string;
  /** Whether the platform compares (stored) names without regard to case. */
  readonly caseInsensitiveNames: boolean;
  /**
   * The node-sql-parser dialect closest to this one, if it has one: the tests check that every
   * statement of the golden scripts whose kind that parser supports parses (none of the service's
   * code reads it).
   */
  readonly parser?: string;
  /** How the sandbox reads and runs the dialect. */
  readonly sandbox: SandboxRules;
}

export interface SandboxRules {
  /** The identifier quotes (`"`, `[`…`]`, `` ` ``); a doubled closing quote is one. */
  readonly identifierQuotes: { readonly open: string; readonly close: string };
  /** String literals: a backslash escapes the next character. */
  readonly backslashEscapes: boolean;
  /** String literals: `''` is one quote (otherwise it ends the literal). */
  readonly doubledQuoteEscapes: boolean;
  /** String literals may be written `N'…'` (national character strings). */
  readonly nationalStrings: boolean;
  /** A plain (unquoted) word as a name; the tokenizer has upper-cased it. */
  plainName(word: string): string;
  /** Where each kind of object lives. */
  readonly scopes: Readonly<Record<string, Scope>>;
  /** The kind of object that holds a schema named `parent.schema`. */
  readonly schemaParent: 'database' | 'catalog';
  /** A schema can only be created inside the session's database, which must exist. */
  readonly schemasNeedSessionDatabase: boolean;
  /** `ON <kind> name` names its securable's kind in one word (`ON SCHEMA::s`, `ON CATALOG c`). */
  readonly oneWordSecurables: boolean;
  /**
   * The key of a securable the sandbox does not model but the platform always has (a system
   * database or catalog), or undefined for a modelled one.
   */
  implicitSecurable?(kind: string, parts: readonly string[]): string | undefined;
  /** `CREATE USER name …` after the name: the dialect's own form (default: `key = value` options). */
  createUser?(r: TokenCursor, db: SandboxModel, user: string): void;
  /** A statement the sandbox accepts and does nothing for (a batch over objects it does not keep). */
  ignores?(sql: string): boolean;
}
