/**
 * The sandbox's SQL interpreter: it executes the statement kinds the script builders emit
 * (and nothing else — an unknown statement is a syntax error, so a builder cannot drift from
 * what the sandbox understands) against a `SandboxState`, with the platform's rules that
 * matter for setup: names are unique per kind, drops need the object, dropping a database or
 * catalog drops its schemas and their grants, dropping a role drops its grants and
 * memberships, and only privileged sessions may create databases, users, roles and logins.
 */
import type { Dialect } from '../sql/quote';
import type { SandboxState } from './store';

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

interface Token {
  t: 'word' | 'ident' | 'string' | 'punct';
  v: string;
}

export function tokenize(dialect: Dialect, sql: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  const closeOf: Record<string, string> = { '"': '"', '[': ']', '`': '`' };
  while (i < sql.length) {
    const c = sql.charAt(i);
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    const opener = dialect === 'tsql' ? '[' : dialect === 'lakehouse' ? '`' : '"';
    if (c === opener) {
      const close = closeOf[c] as string;
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
    if (c === "'" || (dialect === 'tsql' && (c === 'N' || c === 'n') && sql.charAt(i + 1) === "'")) {
      i += c === "'" ? 1 : 2;
      let v = '';
      for (;;) {
        if (i >= sql.length) throw new SandboxSqlError('syntax', 'unterminated string');
        const ch = sql.charAt(i);
        if (ch === '\\' && (dialect === 'cloud' || dialect === 'lakehouse')) {
          v += sql.charAt(i + 1);
          i += 2;
          continue;
        }
        if (ch === "'") {
          if (sql.charAt(i + 1) === "'" && dialect !== 'lakehouse') {
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

/** A session: who runs the statements, in which database, with which rights. */
export interface SandboxSession {
  dialect: Dialect;
  user: string;
  database?: string;
  privileged: boolean;
}

const key = (dialect: Dialect, kind: string, name: string, parent?: string) => {
  const fold = (s: string) => (dialect === 'tsql' || dialect === 'lakehouse' ? s.toLowerCase() : s);
  return `${kind}:${parent === undefined ? '' : `${fold(parent)}.`}${fold(name)}`;
};

/** Kinds of remote objects per dialect and where they live. */
const SCOPED: Record<Dialect, Record<string, 'global' | 'database'>> = {
  cloud: { user: 'global', role: 'global', database: 'global', schema: 'global' },
  cluster: { user: 'global', group: 'global', database: 'global', schema: 'database' },
  tsql: { login: 'global', user: 'database', role: 'database', schema: 'database' },
  lakehouse: { catalog: 'global', schema: 'global' },
};

export class SandboxDb {
  constructor(
    readonly state: SandboxState,
    readonly session: SandboxSession,
  ) {}

  private get d(): Dialect {
    return this.session.dialect;
  }

  private parentFor(kind: string): string | undefined {
    return SCOPED[this.d][kind] === 'database' ? (this.session.database ?? '') : undefined;
  }

  keyOf(kind: string, name: string, parent = this.parentFor(kind)): string {
    return key(this.d, kind, name, parent);
  }

  has(kind: string, name: string, parent?: string): boolean {
    return this.keyOf(kind, name, parent ?? this.parentFor(kind)) in this.state.objects;
  }

  private need(kind: string, name: string, parent?: string): string {
    const k = this.keyOf(kind, name, parent ?? this.parentFor(kind));
    if (!(k in this.state.objects)) throw new SandboxSqlError('missing', `${kind} ${name} does not exist`);
    return k;
  }

  private create(
    kind: string,
    name: string,
    attrs: Record<string, string | boolean> = {},
    parent?: string,
    owner?: string,
  ) {
    const p = parent ?? this.parentFor(kind);
    const k = this.keyOf(kind, name, p);
    if (k in this.state.objects) throw new SandboxSqlError('exists', `${kind} ${name} already exists`);
    this.state.objects[k] = {
      kind,
      name,
      ...(p === undefined ? {} : { parent: p }),
      ...(owner ? { owner } : {}),
      attrs,
    };
  }

  private dropKey(k: string): void {
    const obj = this.state.objects[k];
    delete this.state.objects[k];
    this.state.grants = this.state.grants.filter((g) => !g.includes(`|${k}|`) && !g.endsWith(`|${k}`));
    this.state.members = this.state.members.filter((m) => !m.startsWith(`${k}|`) && !m.endsWith(`|${k}`));
    if (obj && (obj.kind === 'database' || obj.kind === 'catalog')) {
      for (const [child, o] of Object.entries(this.state.objects)) {
        if (o.kind === 'schema' && o.parent !== undefined && this.keyOf(obj.kind, o.parent, undefined) === k)
          this.dropKey(child);
      }
    }
  }

  private rename(kind: string, from: string, to: string): void {
    const k = this.need(kind, from);
    const nk = this.keyOf(kind, to);
    if (nk in this.state.objects) throw new SandboxSqlError('exists', `${kind} ${to} already exists`);
    const obj = this.state.objects[k] as (typeof this.state.objects)[string];
    delete this.state.objects[k];
    this.state.objects[nk] = { ...obj, name: to };
    this.state.grants = this.state.grants.map((g) =>
      g
        .split('|')
        .map((p) => (p === k ? nk : p))
        .join('|'),
    );
    this.state.members = this.state.members.map((m) =>
      m
        .split('|')
        .map((p) => (p === k ? nk : p))
        .join('|'),
    );
  }

  private requirePrivilege(what: string): void {
    if (!this.session.privileged)
      throw new SandboxSqlError('denied', `permission denied: ${this.session.user} may not ${what}`);
  }

  /** The key a grantee name refers to (roles/groups/users; PUBLIC and unknown principals kept by name). */
  private granteeKey(kindWord: string | undefined, name: string): string {
    const kinds =
      kindWord === 'GROUP'
        ? ['group']
        : kindWord === 'USER'
          ? ['user']
          : kindWord === 'ROLE'
            ? ['role']
            : ['role', 'group', 'user'];
    for (const kind of kinds) if (this.has(kind, name)) return this.keyOf(kind, name);
    if (kindWord !== undefined)
      throw new SandboxSqlError('missing', `${kindWord.toLowerCase()} ${name} does not exist`);
    return `principal:${name}`;
  }

  /** The key of a securable named in ON …; objects the sandbox does not model (warehouses, the account, system catalogs) are implicit. */
  private securableKey(objectWords: string[], parts: string[]): string {
    const kindWord = objectWords.join(' ');
    const name = parts[parts.length - 1] ?? '';
    const kind = { DATABASE: 'database', SCHEMA: 'schema', ROLE: 'role', CATALOG: 'catalog' }[kindWord];
    if (kind === undefined) return `${kindWord.toLowerCase()}:${parts.join('.')}`;
    if (kind === 'schema' && parts.length === 2) {
      const parent = parts[0] as string;
      if (this.d === 'lakehouse' && parent.toLowerCase() === 'system') return `schema:${parts.join('.')}`;
      return this.need('schema', name, parent);
    }
    if (kind === 'catalog' && name.toLowerCase() === 'system') return 'catalog:system';
    if (kind === 'database' && this.d === 'cloud' && name === 'SNOWFLAKE') return 'database:SNOWFLAKE';
    return this.need(kind, name);
  }

  execute(sql: string): void {
    if (this.d === 'tsql' && /^\s*DECLARE @drop /i.test(sql)) return; // drop the schema's views: the sandbox keeps no views
    const tokens = tokenize(this.d, sql);
    new StatementRunner(this, tokens).run();
  }

  // Operations used by the runner.
  op = {
    create: (
      kind: string,
      name: string,
      attrs?: Record<string, string | boolean>,
      parent?: string,
      owner?: string,
    ) => {
      if (kind !== 'schema') this.requirePrivilege(`create a ${kind}`);
      if (kind === 'schema' && parent !== undefined && SCOPED[this.d].schema === 'global')
        this.need(this.d === 'lakehouse' ? 'catalog' : 'database', parent, undefined);
      // A PostgreSQL-family session is always inside a database the service created.
      if (kind === 'schema' && this.d === 'cluster')
        this.need('database', this.session.database ?? '', undefined);
      this.create(kind, name, attrs, parent, owner);
    },
    drop: (kind: string, name: string, parent?: string) => {
      if (kind !== 'schema') this.requirePrivilege(`drop a ${kind}`);
      this.dropKey(this.need(kind, name, parent));
    },
    rename: (kind: string, from: string, to: string) => {
      this.requirePrivilege(`rename a ${kind}`);
      this.rename(kind, from, to);
    },
    setAttrs: (kind: string, name: string, attrs: Record<string, string | boolean | undefined>) => {
      const obj = this.state.objects[this.need(kind, name)];
      if (!obj) return;
      for (const [k, v] of Object.entries(attrs)) {
        if (v === undefined) delete obj.attrs[k];
        else obj.attrs[k] = v;
      }
    },
    setOwner: (kind: string, name: string, owner: string, parent?: string) => {
      const obj = this.state.objects[this.need(kind, name, parent)];
      if (obj) obj.owner = owner;
    },
    grant: (
      privileges: string[],
      objectWords: string[] | undefined,
      parts: string[],
      granteeWord: string | undefined,
      grantee: string,
      grantOption: boolean,
    ) => {
      const object =
        objectWords === undefined
          ? `database:${this.session.database ?? ''}`
          : this.securableKey(objectWords, parts);
      const to = this.granteeKey(granteeWord, grantee);
      for (const p of privileges) {
        const entry = `${p}|${object}|${to}`;
        if (!this.state.grants.includes(entry)) this.state.grants.push(entry);
        if (grantOption && !this.state.grants.includes(`${entry}|grant-option`))
          this.state.grants.push(`${entry}|grant-option`);
      }
    },
    revoke: (
      privileges: string[],
      objectWords: string[] | undefined,
      parts: string[],
      granteeWord: string | undefined,
      grantee: string,
      grantOptionOnly: boolean,
    ) => {
      const object =
        objectWords === undefined
          ? `database:${this.session.database ?? ''}`
          : this.securableKey(objectWords, parts);
      const from =
        grantee.toUpperCase() === 'PUBLIC' && granteeWord === undefined
          ? 'principal:PUBLIC'
          : this.granteeKey(granteeWord, grantee);
      for (const p of privileges) {
        const entry = `${p}|${object}|${from}`;
        this.state.grants = this.state.grants.filter((g) =>
          grantOptionOnly
            ? g !== `${entry}|grant-option`
            : p === 'ALL' || p === 'ALL PRIVILEGES'
              ? !(g.split('|')[1] === object && g.split('|')[2] === from)
              : g !== entry && g !== `${entry}|grant-option`,
        );
      }
    },
    addMember: (roleKind: string, role: string, memberKind: string, member: string) => {
      const r = this.need(roleKind, role);
      const m = this.need(memberKind, member);
      const entry = `${r}|${m}`;
      if (!this.state.members.includes(entry)) this.state.members.push(entry);
    },
    removeMember: (roleKind: string, role: string, memberKind: string, member: string) => {
      const r = this.need(roleKind, role);
      const m = this.need(memberKind, member);
      const entry = `${r}|${m}`;
      if (!this.state.members.includes(entry))
        throw new SandboxSqlError('missing', `${member} is not a member of ${role}`);
      this.state.members = this.state.members.filter((x) => x !== entry);
    },
    needObject: (kind: string, name: string, parent?: string) => this.need(kind, name, parent),
  };
}

/** Matches one statement's tokens against the statement kinds the builders emit. */
class StatementRunner {
  private i = 0;
  constructor(
    private readonly db: SandboxDb,
    private readonly tokens: Token[],
  ) {}

  private peek(offset = 0): Token | undefined {
    return this.tokens[this.i + offset];
  }
  private isWord(v: string, offset = 0): boolean {
    const t = this.peek(offset);
    return t?.t === 'word' && t.v === v;
  }
  private accept(...words: string[]): boolean {
    if (words.every((w, n) => this.isWord(w, n))) {
      this.i += words.length;
      return true;
    }
    return false;
  }
  private expect(...words: string[]): void {
    if (!this.accept(...words)) throw this.syntax(`expected ${words.join(' ')}`);
  }
  private syntax(why: string): SandboxSqlError {
    return new SandboxSqlError('syntax', `unsupported statement (${why})`);
  }
  /** A (possibly dotted) name: quoted identifiers, or plain words (folded as the platform would). */
  private name(): string[] {
    const parts: string[] = [];
    for (;;) {
      const t = this.peek();
      if (!t || (t.t !== 'ident' && t.t !== 'word')) throw this.syntax('expected a name');
      parts.push(t.t === 'ident' ? t.v : this.db.session.dialect === 'cloud' ? t.v : t.v.toLowerCase());
      this.i++;
      if (this.peek()?.v === '.' && this.peek()?.t === 'punct') {
        this.i++;
        continue;
      }
      return parts;
    }
  }
  private one(): string {
    const parts = this.name();
    if (parts.length !== 1) throw this.syntax('expected a simple name');
    return parts[0] as string;
  }
  private string(): string {
    const t = this.peek();
    if (t?.t !== 'string') throw this.syntax('expected a string');
    this.i++;
    return t.v;
  }
  private punct(v: string): void {
    const t = this.peek();
    if (t?.t !== 'punct' || t.v !== v) throw this.syntax(`expected ${v}`);
    this.i++;
  }
  private end(): void {
    if (this.i < this.tokens.length) throw this.syntax(`unexpected ${this.peek()?.v}`);
  }
  /** Snowflake-style `KEY = value` options until the end. */
  private options(): Record<string, string | boolean> {
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

  run(): unknown {
    const op = this.db.op;
    const d = this.db.session.dialect;
    if (this.accept('CREATE')) {
      if (this.accept('USER')) {
        const user = this.one();
        if (d === 'tsql') {
          this.expect('FOR', 'LOGIN');
          const login = this.one();
          this.end();
          this.db.op.needObject('login', login);
          return op.create('user', user, { login });
        }
        if (d === 'cluster') {
          this.expect('PASSWORD');
          if (this.accept('DISABLED')) {
            this.end();
            return op.create('user', user, { passwordDisabled: true });
          }
          const password = this.string();
          this.end();
          return op.create('user', user, { password });
        }
        const opts = this.options();
        return op.create('user', user, opts);
      }
      if (this.accept('LOGIN')) {
        const login = this.one();
        this.expect('WITH', 'PASSWORD');
        this.punct('=');
        const password = this.string();
        this.end();
        return op.create('login', login, { password });
      }
      if (this.accept('ROLE') || this.accept('GROUP')) {
        const kind = this.tokens[this.i - 1]?.v === 'GROUP' ? 'group' : 'role';
        const name = this.one();
        let owner: string | undefined;
        if (this.accept('AUTHORIZATION')) owner = this.one();
        this.end();
        return op.create(kind, name, {}, undefined, owner);
      }
      if (this.accept('DATABASE') || this.accept('CATALOG')) {
        const kind = this.tokens[this.i - 1]?.v === 'CATALOG' ? 'catalog' : 'database';
        const name = this.one();
        let owner: string | undefined;
        if (this.accept('OWNER')) owner = this.one();
        if (this.accept('COMMENT')) this.string();
        this.end();
        return op.create(kind, name, {}, undefined, owner ?? this.db.session.user);
      }
      if (this.accept('SCHEMA')) {
        const parts = this.name();
        let owner: string | undefined;
        if (this.accept('AUTHORIZATION')) owner = this.one();
        this.end();
        if (parts.length === 2) return op.create('schema', parts[1] as string, {}, parts[0], owner);
        return op.create('schema', parts[0] as string, {}, undefined, owner ?? this.db.session.user);
      }
      throw this.syntax('CREATE');
    }
    if (this.accept('DROP')) {
      const kindWord = this.peek()?.v;
      const kinds: Record<string, string> = {
        USER: 'user',
        LOGIN: 'login',
        ROLE: 'role',
        GROUP: 'group',
        DATABASE: 'database',
        SCHEMA: 'schema',
        CATALOG: 'catalog',
      };
      const kind = kindWord ? kinds[kindWord] : undefined;
      if (!kind) throw this.syntax('DROP');
      this.i++;
      const parts = this.name();
      this.accept('CASCADE');
      this.end();
      if (parts.length === 2) return op.drop(kind, parts[1] as string, parts[0]);
      return op.drop(kind, parts[0] as string);
    }
    if (this.accept('ALTER')) {
      if (this.accept('GROUP')) {
        const group = this.one();
        if (this.accept('ADD', 'USER')) {
          const user = this.one();
          this.end();
          return op.addMember('group', group, 'user', user);
        }
        if (this.accept('DROP', 'USER')) {
          const user = this.one();
          this.end();
          return op.removeMember('group', group, 'user', user);
        }
        this.expect('RENAME', 'TO');
        const to = this.one();
        this.end();
        return op.rename('group', group, to);
      }
      if (this.accept('USER') || this.accept('LOGIN') || this.accept('ROLE')) {
        const kind = (this.tokens[this.i - 1]?.v ?? '').toLowerCase();
        const name = this.one();
        if (this.accept('RENAME', 'TO')) {
          const to = this.one();
          this.end();
          return op.rename(kind, name, to);
        }
        if (this.accept('WITH', 'NAME')) {
          this.punct('=');
          const to = this.one();
          this.end();
          return op.rename(kind, name, to);
        }
        if (this.accept('WITH', 'PASSWORD')) {
          this.punct('=');
          const password = this.string();
          this.end();
          return op.setAttrs(kind, name, { password });
        }
        if (this.accept('PASSWORD')) {
          if (this.accept('DISABLED')) {
            this.end();
            return op.setAttrs(kind, name, { password: undefined, passwordDisabled: true });
          }
          const password = this.string();
          this.end();
          return op.setAttrs(kind, name, { password, passwordDisabled: undefined });
        }
        if (this.accept('SET')) return op.setAttrs(kind, name, this.options());
        if (this.accept('UNSET')) {
          const attr = this.one().toLowerCase();
          this.end();
          return op.setAttrs(kind, name, { [attr]: undefined });
        }
        throw this.syntax('ALTER');
      }
      if (this.accept('CATALOG')) {
        const catalog = this.one();
        this.expect('OWNER', 'TO');
        const owner = this.one();
        this.end();
        return op.setOwner('catalog', catalog, owner);
      }
      throw this.syntax('ALTER');
    }
    if (this.accept('GRANT') || this.accept('REVOKE')) {
      const isGrant = this.tokens[this.i - 1]?.v === 'GRANT';
      const grantOptionOnly = !isGrant && this.accept('GRANT', 'OPTION', 'FOR');
      if (this.accept('ROLE')) {
        const role = this.one();
        this.expect(isGrant ? 'TO' : 'FROM', 'USER');
        const user = this.one();
        this.end();
        return isGrant
          ? op.addMember('role', role, 'user', user)
          : op.removeMember('role', role, 'user', user);
      }
      const privileges: string[] = [];
      let current: string[] = [];
      while (this.peek() && !this.isWord('ON') && !this.isWord('TO') && !this.isWord('FROM')) {
        const t = this.peek() as Token;
        this.i++;
        if (t.t === 'punct' && t.v === ',') {
          privileges.push(current.join(' '));
          current = [];
        } else if (t.t === 'word') current.push(t.v);
        else throw this.syntax('privilege');
      }
      if (current.length > 0) privileges.push(current.join(' '));
      let objectWords: string[] | undefined;
      let parts: string[] = [];
      if (this.accept('ON')) {
        objectWords = [];
        while (this.peek()?.t === 'word' && !this.isWord('TO') && !this.isWord('FROM')) {
          const v = (this.peek() as Token).v;
          objectWords.push(v);
          this.i++;
          if (v === 'ACCOUNT') break;
          if (d === 'tsql' || d === 'lakehouse' || this.peek()?.t === 'ident') break;
        }
        if (this.peek()?.t === 'punct' && this.peek()?.v === '::') this.i++;
        if (!objectWords.includes('ACCOUNT')) parts = this.name();
      }
      this.expect(isGrant ? 'TO' : 'FROM');
      let granteeWord: string | undefined;
      if (this.accept('ROLE') || this.accept('GROUP') || this.accept('USER'))
        granteeWord = this.tokens[this.i - 1]?.v;
      const grantee = this.one();
      const grantOption = isGrant && this.accept('WITH', 'GRANT', 'OPTION');
      this.end();
      if (privileges.length === 1 && privileges[0] === 'OWNERSHIP' && objectWords) {
        const kind = { DATABASE: 'database', SCHEMA: 'schema', ROLE: 'role' }[objectWords.join(' ')];
        if (!kind) throw this.syntax('OWNERSHIP');
        const owner = this.db.op.needObject('role', grantee);
        return parts.length === 2
          ? op.setOwner(kind, parts[1] as string, owner, parts[0])
          : op.setOwner(kind, parts[0] as string, owner);
      }
      return isGrant
        ? op.grant(privileges, objectWords, parts, granteeWord, grantee, grantOption)
        : op.revoke(privileges, objectWords, parts, granteeWord, grantee, grantOptionOnly);
    }
    throw this.syntax(`starts with ${this.peek()?.v ?? 'nothing'}`);
  }
}
