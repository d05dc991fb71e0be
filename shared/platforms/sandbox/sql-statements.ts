/**
 * The statement forms the sandbox understands, one small handler each, in a table keyed by
 * the statement's leading words. These are exactly the forms the script builders emit; an
 * unknown statement is a syntax error, so a builder cannot drift from what the sandbox
 * understands.
 */
import { dialectOf } from '../sql/dialects';
import type { SandboxModel } from './sql-model';
import { type Token, TokenCursor } from './sql-tokens';

type Handler = (r: TokenCursor, db: SandboxModel) => void;

// CREATE …

/** CREATE USER name …: the dialect's own form, or `key = value` options. */
const createUser: Handler = (r, db) => {
  const user = r.one();
  const own = dialectOf(db.session.dialect).sandbox.createUser;
  if (own) return own(r, db, user);
  return db.op.create('user', user, r.options());
};

const createLogin: Handler = (r, db) => {
  const login = r.one();
  r.expect('WITH', 'PASSWORD');
  r.punct('=');
  const password = r.string();
  r.end();
  db.op.create('login', login, { password });
};

/** CREATE ROLE | GROUP name [AUTHORIZATION owner] */
const createPrincipal =
  (kind: 'role' | 'group'): Handler =>
  (r, db) => {
    const name = r.one();
    const owner = r.accept('AUTHORIZATION') ? r.one() : undefined;
    r.end();
    db.op.create(kind, name, {}, undefined, owner);
  };

/** CREATE DATABASE | CATALOG name [OWNER owner] [COMMENT '…'] */
const createContainer =
  (kind: 'database' | 'catalog'): Handler =>
  (r, db) => {
    const name = r.one();
    const owner = r.accept('OWNER') ? r.one() : undefined;
    if (r.accept('COMMENT')) r.string();
    r.end();
    db.op.create(kind, name, {}, undefined, owner ?? db.session.user);
  };

const createSchema: Handler = (r, db) => {
  const parts = r.name();
  const owner = r.accept('AUTHORIZATION') ? r.one() : undefined;
  r.end();
  if (parts.length === 2) return db.op.create('schema', parts[1] as string, {}, parts[0], owner);
  return db.op.create('schema', parts[0] as string, {}, undefined, owner ?? db.session.user);
};

// DROP …

/** DROP kind [parent.]name [CASCADE] */
const drop =
  (kind: string): Handler =>
  (r, db) => {
    const parts = r.name();
    r.accept('CASCADE');
    r.end();
    if (parts.length === 2) return db.op.drop(kind, parts[1] as string, parts[0]);
    return db.op.drop(kind, parts[0] as string);
  };

// ALTER …

const alterGroup: Handler = (r, db) => {
  const group = r.one();
  if (r.accept('ADD', 'USER')) {
    const user = r.one();
    r.end();
    return db.op.addMember('group', group, 'user', user);
  }
  if (r.accept('DROP', 'USER')) {
    const user = r.one();
    r.end();
    return db.op.removeMember('group', group, 'user', user);
  }
  r.expect('RENAME', 'TO');
  const to = r.one();
  r.end();
  db.op.rename('group', group, to);
};

/** ALTER USER | LOGIN | ROLE name: rename, password, or options. */
const alterPrincipal =
  (kind: 'user' | 'login' | 'role'): Handler =>
  (r, db) => {
    const name = r.one();
    if (r.accept('RENAME', 'TO')) {
      const to = r.one();
      r.end();
      return db.op.rename(kind, name, to);
    }
    if (r.accept('WITH', 'NAME')) {
      r.punct('=');
      const to = r.one();
      r.end();
      return db.op.rename(kind, name, to);
    }
    if (r.accept('WITH', 'PASSWORD')) {
      r.punct('=');
      const password = r.string();
      r.end();
      return db.op.setAttrs(kind, name, { password });
    }
    if (r.accept('PASSWORD')) {
      if (r.accept('DISABLED')) {
        r.end();
        return db.op.setAttrs(kind, name, { password: undefined, passwordDisabled: true });
      }
      const password = r.string();
      r.end();
      return db.op.setAttrs(kind, name, { password, passwordDisabled: undefined });
    }
    if (r.accept('SET')) return db.op.setAttrs(kind, name, r.options());
    if (r.accept('UNSET')) {
      const attr = r.one().toLowerCase();
      r.end();
      return db.op.setAttrs(kind, name, { [attr]: undefined });
    }
    throw r.syntax('ALTER');
  };

const alterCatalogOwner: Handler = (r, db) => {
  const catalog = r.one();
  r.expect('OWNER', 'TO');
  const owner = r.one();
  r.end();
  db.op.setOwner('catalog', catalog, owner);
};

// GRANT / REVOKE …

/** GRANT ROLE role TO USER user; REVOKE [GRANT OPTION FOR] ROLE role FROM USER user */
const roleMembership =
  (isGrant: boolean): Handler =>
  (r, db) => {
    const role = r.one();
    r.expect(isGrant ? 'TO' : 'FROM', 'USER');
    const user = r.one();
    r.end();
    if (isGrant) db.op.addMember('role', role, 'user', user);
    else db.op.removeMember('role', role, 'user', user);
  };

/** privilege[, …] until ON, TO or FROM; a privilege may be several words (ALL PRIVILEGES). */
function privilegeList(r: TokenCursor): string[] {
  const privileges: string[] = [];
  let current: string[] = [];
  while (r.peek() && !r.isWord('ON') && !r.isWord('TO') && !r.isWord('FROM')) {
    const t = r.peek() as Token;
    r.skip();
    if (t.t === 'punct' && t.v === ',') {
      privileges.push(current.join(' '));
      current = [];
    } else if (t.t === 'word') current.push(t.v);
    else throw r.syntax('privilege');
  }
  if (current.length > 0) privileges.push(current.join(' '));
  return privileges;
}

/** [ON object-kind-words [::] name]: the kind words and the dotted name (none for ACCOUNT). */
function securable(r: TokenCursor, db: SandboxModel): { objectWords?: string[]; parts: string[] } {
  if (!r.accept('ON')) return { parts: [] };
  const oneWord = dialectOf(db.session.dialect).sandbox.oneWordSecurables;
  const objectWords: string[] = [];
  while (r.peek()?.t === 'word' && !r.isWord('TO') && !r.isWord('FROM')) {
    const v = (r.peek() as Token).v;
    objectWords.push(v);
    r.skip();
    if (v === 'ACCOUNT') break;
    if (oneWord || r.peek()?.t === 'ident') break;
  }
  if (r.peek()?.t === 'punct' && r.peek()?.v === '::') r.skip();
  return { objectWords, parts: objectWords.includes('ACCOUNT') ? [] : r.name() };
}

/** GRANT privileges [ON object] TO [ROLE|GROUP|USER] grantee [WITH GRANT OPTION], and REVOKE. */
const privileges =
  (isGrant: boolean, grantOptionOnly: boolean): Handler =>
  (r, db) => {
    const list = privilegeList(r);
    const { objectWords, parts } = securable(r, db);
    r.expect(isGrant ? 'TO' : 'FROM');
    const granteeWord =
      r.accept('ROLE') || r.accept('GROUP') || r.accept('USER') ? r.previous()?.v : undefined;
    const grantee = r.one();
    const grantOption = isGrant && r.accept('WITH', 'GRANT', 'OPTION');
    r.end();
    if (list.length === 1 && list[0] === 'OWNERSHIP' && objectWords) {
      const kind = { DATABASE: 'database', SCHEMA: 'schema', ROLE: 'role' }[objectWords.join(' ')];
      if (!kind) throw r.syntax('OWNERSHIP');
      const owner = db.op.needObject('role', grantee);
      return parts.length === 2
        ? db.op.setOwner(kind, parts[1] as string, owner, parts[0])
        : db.op.setOwner(kind, parts[0] as string, owner);
    }
    if (isGrant) db.op.grant(list, objectWords, parts, granteeWord, grantee, grantOption);
    else db.op.revoke(list, objectWords, parts, granteeWord, grantee, grantOptionOnly);
  };

/** Every statement form, keyed by its leading words; the longest matching key wins. */
const STATEMENTS: Record<string, Handler> = {
  'CREATE USER': createUser,
  'CREATE LOGIN': createLogin,
  'CREATE ROLE': createPrincipal('role'),
  'CREATE GROUP': createPrincipal('group'),
  'CREATE DATABASE': createContainer('database'),
  'CREATE CATALOG': createContainer('catalog'),
  'CREATE SCHEMA': createSchema,
  'DROP USER': drop('user'),
  'DROP LOGIN': drop('login'),
  'DROP ROLE': drop('role'),
  'DROP GROUP': drop('group'),
  'DROP DATABASE': drop('database'),
  'DROP SCHEMA': drop('schema'),
  'DROP CATALOG': drop('catalog'),
  'ALTER GROUP': alterGroup,
  'ALTER USER': alterPrincipal('user'),
  'ALTER LOGIN': alterPrincipal('login'),
  'ALTER ROLE': alterPrincipal('role'),
  'ALTER CATALOG': alterCatalogOwner,
  'GRANT ROLE': roleMembership(true),
  'REVOKE ROLE': roleMembership(false),
  'REVOKE GRANT OPTION FOR ROLE': roleMembership(false),
  GRANT: privileges(true, false),
  REVOKE: privileges(false, false),
  'REVOKE GRANT OPTION FOR': privileges(false, true),
};

const LONGEST_KEY = Math.max(...Object.keys(STATEMENTS).map((k) => k.split(' ').length));

/** Verbs whose unknown forms are reported by the verb alone. */
const VERBS = new Set(['CREATE', 'DROP', 'ALTER']);

/** Runs one statement's tokens against `db`, through the handler its leading words select. */
export function runStatement(db: SandboxModel, tokens: Token[]): void {
  const r = new TokenCursor(tokens, db.session.dialect);
  const words = r.leadingWords(LONGEST_KEY);
  for (let n = words.length; n > 0; n--) {
    const handler = STATEMENTS[words.slice(0, n).join(' ')];
    if (handler) {
      r.skip(n);
      handler(r, db);
      return;
    }
  }
  const verb = words[0];
  throw r.syntax(verb !== undefined && VERBS.has(verb) ? verb : `starts with ${r.peek()?.v ?? 'nothing'}`);
}
