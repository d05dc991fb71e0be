/**
 * The sandbox's state model: the remote objects, grants and memberships of one simulated host
 * (`SandboxState`), and the operations statements perform on them, with the platform's rules
 * that matter for setup: names are unique per kind, drops need the object, dropping a database
 * or catalog drops its schemas and their grants, dropping a role drops its grants and
 * memberships, and only privileged sessions may create databases, users, roles and logins.
 */

import { withArticle } from '../../text';
import type { SandboxRules } from '../sql/dialect';
import { type Dialect, dialectOf } from '../sql/dialects';
import { SandboxSqlError } from './sql-tokens';
import type { SandboxState } from './store';

/** A session: who runs the statements, in which database, with which rights. */
export interface SandboxSession {
  dialect: Dialect;
  user: string;
  database?: string;
  privileged: boolean;
}

const key = (dialect: Dialect, kind: string, name: string, parent?: string) => {
  const fold = (s: string) => (dialectOf(dialect).caseInsensitiveNames ? s.toLowerCase() : s);
  return `${kind}:${parent === undefined ? '' : `${fold(parent)}.`}${fold(name)}`;
};

export class SandboxModel {
  constructor(
    readonly state: SandboxState,
    readonly session: SandboxSession,
  ) {}

  private get d(): Dialect {
    return this.session.dialect;
  }

  private get rules(): SandboxRules {
    return dialectOf(this.d).sandbox;
  }

  private parentFor(kind: string): string | undefined {
    return this.rules.scopes[kind] === 'database' ? (this.session.database ?? '') : undefined;
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

  /**
   * The key of a securable named in ON … (no ON: the session's database); objects the sandbox
   * does not model (warehouses, the account, system catalogs) are implicit.
   */
  private securableKey(objectWords: string[] | undefined, parts: string[]): string {
    if (objectWords === undefined) return `database:${this.session.database ?? ''}`;
    const kindWord = objectWords.join(' ');
    const name = parts[parts.length - 1] ?? '';
    const kind = { DATABASE: 'database', SCHEMA: 'schema', ROLE: 'role', CATALOG: 'catalog' }[kindWord];
    if (kind === undefined) return `${kindWord.toLowerCase()}:${parts.join('.')}`;
    const implicit = this.rules.implicitSecurable?.(kind, parts);
    if (implicit !== undefined) return implicit;
    if (kind === 'schema' && parts.length === 2) return this.need('schema', name, parts[0] as string);
    return this.need(kind, name);
  }

  /** What statements do to the state (the statement handlers call these). */
  op = {
    create: (
      kind: string,
      name: string,
      attrs?: Record<string, string | boolean>,
      parent?: string,
      owner?: string,
    ) => {
      if (kind !== 'schema') this.requirePrivilege(`create ${withArticle(kind)}`);
      if (kind === 'schema' && parent !== undefined && this.rules.scopes.schema === 'global')
        this.need(this.rules.schemaParent, parent, undefined);
      if (kind === 'schema' && this.rules.schemasNeedSessionDatabase)
        this.need('database', this.session.database ?? '', undefined);
      this.create(kind, name, attrs, parent, owner);
    },
    drop: (kind: string, name: string, parent?: string) => {
      if (kind !== 'schema') this.requirePrivilege(`drop ${withArticle(kind)}`);
      this.dropKey(this.need(kind, name, parent));
    },
    rename: (kind: string, from: string, to: string) => {
      this.requirePrivilege(`rename ${withArticle(kind)}`);
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
      const object = this.securableKey(objectWords, parts);
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
      const object = this.securableKey(objectWords, parts);
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
