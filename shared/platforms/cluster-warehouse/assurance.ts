/**
 * ClusterWarehouse assurance: whether a setup step's grant or membership still holds, and which
 * privileges a principal the plan created holds beyond the plan (privilege creep), read from the
 * catalog views PostgreSQL and Redshift share (`pg_database.datacl`, `pg_namespace.nspacl`,
 * `pg_group`, `pg_user`) — `pg_roles`/`pg_auth_members` only where they exist (PostgreSQL).
 *
 * Privileges come from the ACL text (`grantee=privileges/grantor`; PUBLIC has an empty grantee;
 * Redshift writes groups as `group name`). A NULL ACL means the defaults: PUBLIC may connect to
 * and create temporary tables in a database; a schema's defaults give PUBLIC nothing.
 */
import type { AssuredStep } from '../driver';
import type { Grantee, PlanObject } from '../sql/plan';

/** Runs one catalog query with parameters and returns its rows. */
export type CatalogQuery = <R extends Record<string, unknown>>(
  sql: string,
  params: unknown[],
) => Promise<R[]>;

type Securable = Extract<PlanObject, { kind: 'grant' }>['on'];
interface AclEntry {
  grantee: string;
  privileges: string;
}

const PRIVILEGE_LETTERS: Record<'database' | 'schema', Record<string, string>> = {
  database: { CREATE: 'C', TEMPORARY: 'T', TEMP: 'T', CONNECT: 'c' },
  schema: { USAGE: 'U', CREATE: 'C' },
};
/** What ALL means on each securable, as letters both dialects write (Redshift has no CONNECT). */
const ALL_LETTERS = { database: 'CT', schema: 'UC' } as const;
const LETTER_NAMES: Record<'database' | 'schema', Record<string, string>> = {
  database: { C: 'CREATE', T: 'TEMPORARY', c: 'CONNECT' },
  schema: { U: 'USAGE', C: 'CREATE' },
};

function lettersOf(on: 'database' | 'schema', privilege: string): string {
  const upper = privilege.toUpperCase();
  if (upper === 'ALL' || upper === 'ALL PRIVILEGES') return ALL_LETTERS[on];
  return upper
    .split(/\s*,\s*/)
    .map((p) => PRIVILEGE_LETTERS[on][p] ?? '')
    .join('');
}

/** The elements of a PostgreSQL array literal (`{a,"b c"}`), unquoted. */
function arrayElements(text: string): string[] {
  const body = text.trim().replace(/^\{/, '').replace(/\}$/, '');
  if (body === '') return [];
  const items: string[] = [];
  let current = '';
  let quoted = false;
  for (let i = 0; i < body.length; i++) {
    const ch = body[i] as string;
    if (quoted) {
      if (ch === '\\') current += body[++i] ?? '';
      else if (ch === '"') quoted = false;
      else current += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      items.push(current);
      current = '';
    } else current += ch;
  }
  items.push(current);
  return items;
}

/** One ACL item (`name=CTc/owner`, `"odd name"=U/owner`, `group g=CT/owner`, `=Tc/owner`). */
function parseAclItem(item: string): AclEntry | undefined {
  const slash = item.lastIndexOf('/');
  const eq = item.lastIndexOf('=', slash < 0 ? item.length : slash);
  if (eq < 0) return undefined;
  let grantee = item.slice(0, eq).replace(/^group /, '');
  if (grantee.startsWith('"') && grantee.endsWith('"')) grantee = grantee.slice(1, -1).replace(/""/g, '"');
  return { grantee, privileges: item.slice(eq + 1, slash < 0 ? undefined : slash) };
}

export function parseAcl(text: string): AclEntry[] {
  return arrayElements(text).flatMap((item) => parseAclItem(item) ?? []);
}

/** The ACL of a database or schema: entries, `null` for the defaults, undefined if it is gone. */
async function aclOf(query: CatalogQuery, on: Securable, norm: (v: string) => string) {
  const rows =
    on.kind === 'database'
      ? await query<{ acl: string | null }>(
          'SELECT datacl::text AS acl FROM pg_database WHERE datname = $1',
          [norm(on.name)],
        )
      : await query<{ acl: string | null }>(
          'SELECT nspacl::text AS acl FROM pg_namespace WHERE nspname = $1',
          [norm(on.name)],
        );
  if (rows.length === 0) return undefined;
  const acl = rows[0]?.acl ?? null;
  return acl === null ? null : parseAcl(acl);
}

const DEFAULT_PUBLIC = { database: 'Tc', schema: '' } as const;

function heldLetters(acl: AclEntry[] | null, on: 'database' | 'schema', grantee: string): string {
  if (acl === null) return grantee === '' ? DEFAULT_PUBLIC[on] : '';
  return acl
    .filter((e) => e.grantee === grantee)
    .map((e) => e.privileges.replace(/\*/g, ''))
    .join('');
}

const granteeName = (to: Grantee, norm: (v: string) => string) => (to.kind === 'public' ? '' : norm(to.name));

/** Whether a step's effect holds; undefined for kinds this module does not judge. */
export async function clusterInPlace(
  query: CatalogQuery,
  { object }: AssuredStep,
  norm: (v: string) => string,
): Promise<boolean | undefined> {
  if (object.kind === 'membership') {
    const rows = await query(
      'SELECT 1 FROM pg_group g JOIN pg_user u ON u.usesysid = ANY (g.grolist) WHERE g.groname = $1 AND u.usename = $2',
      [norm(object.role.name), norm(object.member.name)],
    );
    return rows.length > 0;
  }
  if (object.kind !== 'grant' || (object.on.kind !== 'database' && object.on.kind !== 'schema'))
    return undefined;
  const on = object.on.kind;
  const acl = await aclOf(query, object.on, norm);
  if (acl === undefined) return false;
  const wanted =
    object.revoked && object.privilege.toUpperCase() === 'ALL' ? 'CTc' : lettersOf(on, object.privilege);
  const held = heldLetters(acl, on, granteeName(object.to, norm));
  return object.revoked
    ? [...wanted].every((l) => !held.includes(l))
    : [...wanted].every((l) => held.includes(l));
}

/** Privileges, memberships and attributes `principal` holds that none of `planned` made. */
export async function clusterUnplannedGrants(
  query: CatalogQuery,
  principal: Grantee,
  planned: readonly AssuredStep[],
  norm: (v: string) => string,
): Promise<string[]> {
  const me = norm(principal.name);
  const found: string[] = [];
  const plannedLetters = (kind: 'database' | 'schema', name: string) =>
    planned
      .flatMap((s) =>
        s.object.kind === 'grant' &&
        !s.object.revoked &&
        s.object.on.kind === kind &&
        norm(s.object.on.name) === norm(name) &&
        granteeName(s.object.to, norm) === me
          ? [lettersOf(kind, s.object.privilege)]
          : [],
      )
      .join('');
  const extra = (kind: 'database' | 'schema', name: string, owner: string, acl: string | null) => {
    if (acl === null || owner === me) return; // defaults, or its own object (ownership is planned)
    const held = heldLetters(parseAcl(acl), kind, me);
    const allowed = plannedLetters(kind, name);
    // ALL on a database also includes CONNECT where the dialect has it.
    const covered =
      allowed.includes('C') && allowed.includes('T') && kind === 'database' ? `${allowed}c` : allowed;
    const beyond = [...new Set(held)].filter((l) => l !== '*' && !covered.includes(l));
    if (beyond.length > 0)
      found.push(`grant ${beyond.map((l) => LETTER_NAMES[kind][l] ?? l).join(', ')} on ${kind} ${name}`);
  };
  const databases = await query<{ name: string; owner: string; acl: string | null }>(
    'SELECT datname AS name, pg_get_userbyid(datdba) AS owner, datacl::text AS acl FROM pg_database',
    [],
  );
  for (const d of databases) extra('database', d.name, d.owner, d.acl);
  const schemas = await query<{ name: string; owner: string; acl: string | null }>(
    "SELECT nspname AS name, pg_get_userbyid(nspowner) AS owner, nspacl::text AS acl FROM pg_namespace WHERE nspname NOT LIKE 'pg\\_%' AND nspname <> 'information_schema'",
    [],
  );
  for (const s of schemas) extra('schema', s.name, s.owner, s.acl);

  const plannedGroups = new Set(
    planned.flatMap((s) =>
      s.object.kind === 'membership' && norm(s.object.member.name) === me ? [norm(s.object.role.name)] : [],
    ),
  );
  for (const group of await groupsOf(query, me))
    if (!plannedGroups.has(group)) found.push(`membership in group ${group}`);
  for (const attribute of await attributesOf(query, me)) found.push(`attribute ${attribute}`);
  return found;
}

/** The groups (roles, on PostgreSQL) `name` is a member of. */
async function groupsOf(query: CatalogQuery, name: string): Promise<string[]> {
  try {
    const rows = await query<{ name: string }>(
      'SELECT r.rolname AS name FROM pg_auth_members m JOIN pg_roles r ON r.oid = m.roleid JOIN pg_roles me ON me.oid = m.member WHERE me.rolname = $1',
      [name],
    );
    return rows.map((r) => r.name);
  } catch {
    const rows = await query<{ name: string }>(
      'SELECT g.groname AS name FROM pg_group g JOIN pg_user u ON u.usesysid = ANY (g.grolist) WHERE u.usename = $1',
      [name],
    );
    return rows.map((r) => r.name);
  }
}

/** Role attributes no plan gives: SUPERUSER, CREATEDB, CREATEROLE. */
async function attributesOf(query: CatalogQuery, name: string): Promise<string[]> {
  let row: { superuser?: boolean; createdb?: boolean; createrole?: boolean } | undefined;
  try {
    [row] = await query(
      'SELECT rolsuper AS superuser, rolcreatedb AS createdb, rolcreaterole AS createrole FROM pg_roles WHERE rolname = $1',
      [name],
    );
  } catch {
    [row] = await query(
      'SELECT usesuper AS superuser, usecreatedb AS createdb FROM pg_user WHERE usename = $1',
      [name],
    );
  }
  if (!row) return [];
  return [
    ...(row.superuser ? ['SUPERUSER'] : []),
    ...(row.createdb ? ['CREATEDB'] : []),
    ...(row.createrole ? ['CREATEROLE'] : []),
  ];
}
