/**
 * The sandbox SQL interpreter's lexical half: the tokenizer (each dialect's identifier quotes
 * and string escapes, as `../sql/quote.ts` writes them) and the cursor the statement handlers
 * read tokens with.
 */
import { type Dialect, dialectOf } from '../sql/dialects';

export type SandboxErrorCode = 'exists' | 'missing' | 'denied' | 'syntax';

export class SandboxSqlError extends Error {
  override name = 'SandboxSqlError';
  constructor(
    readonly code: SandboxErrorCode,
    message: string,
  ) {
    super(message);
  }
}

export interface Token {
  t: 'word' | 'ident' | 'string' | 'punct';
  v: string;
}

export function tokenize(dialect: Dialect, sql: string): Token[] {
  const rules = dialectOf(dialect).sandbox;
  const out: Token[] = [];
  let i = 0;
  while (i < sql.length) {
    const c = sql.charAt(i);
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    if (c === rules.identifierQuotes.open) {
      const close = rules.identifierQuotes.close;
      let v = '';
      i++;
      for (;;) {
        if (i >= sql.length) throw new SandboxSqlError('syntax', 'unterminated identifier');
        const ch = sql.charAt(i);
        if (ch === close) {
          if (sql.charAt(i + 1) === close) {
            v += close;
            i += 2;
            continue;
          }
          i++;
          break;
        }
        v += ch;
        i++;
      }
      out.push({ t: 'ident', v });
      continue;
    }
    if (c === "'" || (rules.nationalStrings && (c === 'N' || c === 'n') && sql.charAt(i + 1) === "'")) {
      i += c === "'" ? 1 : 2;
      let v = '';
      for (;;) {
        if (i >= sql.length) throw new SandboxSqlError('syntax', 'unterminated string');
        const ch = sql.charAt(i);
        if (ch === '\\' && rules.backslashEscapes) {
          v += sql.charAt(i + 1);
          i += 2;
          continue;
        }
        if (ch === "'") {
          if (sql.charAt(i + 1) === "'" && rules.doubledQuoteEscapes) {
            v += "'";
            i += 2;
            continue;
          }
          i++;
          break;
        }
        v += ch;
        i++;
      }
      out.push({ t: 'string', v });
      continue;
    }
    const word = /^[A-Za-z_@][A-Za-z0-9_$@]*/.exec(sql.slice(i));
    if (word) {
      out.push({ t: 'word', v: word[0].toUpperCase() });
      i += word[0].length;
      continue;
    }
    if (sql.startsWith('::', i)) {
      out.push({ t: 'punct', v: '::' });
      i += 2;
      continue;
    }
    out.push({ t: 'punct', v: c });
    i++;
  }
  return out;
}

/** Reads one statement's tokens front to back; every mismatch is a syntax error. */
export class TokenCursor {
  private i = 0;
  constructor(
    private readonly tokens: Token[],
    private readonly dialect: Dialect,
  ) {}

  peek(offset = 0): Token | undefined {
    return this.tokens[this.i + offset];
  }
  /** The token just consumed. */
  previous(): Token | undefined {
    return this.tokens[this.i - 1];
  }
  skip(count = 1): void {
    this.i += count;
  }
  atEnd(): boolean {
    return this.i >= this.tokens.length;
  }
  isWord(v: string, offset = 0): boolean {
    const t = this.peek(offset);
    return t?.t === 'word' && t.v === v;
  }
  /** The leading run of words (at most `max`), without consuming them. */
  leadingWords(max: number): string[] {
    const words: string[] = [];
    for (let n = 0; n < max && this.peek(n)?.t === 'word'; n++) words.push((this.peek(n) as Token).v);
    return words;
  }
  accept(...words: string[]): boolean {
    if (words.every((w, n) => this.isWord(w, n))) {
      this.i += words.length;
      return true;
    }
    return false;
  }
  expect(...words: string[]): void {
    if (!this.accept(...words)) throw this.syntax(`expected ${words.join(' ')}`);
  }
  syntax(why: string): SandboxSqlError {
    return new SandboxSqlError('syntax', `unsupported statement (${why})`);
  }
  /** A (possibly dotted) name: quoted identifiers, or plain words (folded as the platform would). */
  name(): string[] {
    const parts: string[] = [];
    for (;;) {
      const t = this.peek();
      if (!t || (t.t !== 'ident' && t.t !== 'word')) throw this.syntax('expected a name');
      parts.push(t.t === 'ident' ? t.v : dialectOf(this.dialect).sandbox.plainName(t.v));
      this.i++;
      if (this.peek()?.v === '.' && this.peek()?.t === 'punct') {
        this.i++;
        continue;
      }
      return parts;
    }
  }
  one(): string {
    const parts = this.name();
    if (parts.length !== 1) throw this.syntax('expected a simple name');
    return parts[0] as string;
  }
  string(): string {
    const t = this.peek();
    if (t?.t !== 'string') throw this.syntax('expected a string');
    this.i++;
    return t.v;
  }
  punct(v: string): void {
    const t = this.peek();
    if (t?.t !== 'punct' || t.v !== v) throw this.syntax(`expected ${v}`);
    this.i++;
  }
  end(): void {
    if (this.i < this.tokens.length) throw this.syntax(`unexpected ${this.peek()?.v}`);
  }
  /** Snowflake-style `KEY = value` options until the end. */
  options(): Record<string, string | boolean> {
    const out: Record<string, string | boolean> = {};
    while (this.i < this.tokens.length) {
      const k = this.peek();
      if (k?.t !== 'word') throw this.syntax('expected an option');
      this.i++;
      this.punct('=');
      const v = this.peek();
      if (!v) throw this.syntax('expected a value');
      this.i++;
      out[k.v.toLowerCase()] = v.t === 'word' && (v.v === 'TRUE' || v.v === 'FALSE') ? v.v === 'TRUE' : v.v;
    }
    return out;
  }
}
