/**
 * Webhook payload filters (ADR 0010): a CEL expression over the payload as it would be delivered
 * (`text`, `metadata`, `webhookId`, `webhookName`). `compileFilter` refuses what can never work
 * (too long, not parsing or type-checking, outside the allowed subset, a field the payload never
 * has) with an `InvalidInputError` naming the line and column or the field; `filterDecision`
 * evaluates a webhook's filter, compiled once per webhook version, and never throws: an
 * expression that fails at run time or exceeds its time bound is a non-match with its error.
 *
 * The cost bound is structural: no macros, comprehensions or regular expressions, at most
 * `MAX_FILTER_NODES` syntax nodes, `MAX_FILTER_DEPTH` nesting and `MAX_LIST_ELEMENTS` per list
 * literal, so each node is evaluated at most once and an evaluation is linear in the expression
 * and the payload. The time bound (`EVALUATION_BUDGET_MS`) reports an evaluation that ran longer
 * anyway, twice in a row (it cannot interrupt one).
 */
import {
  type ASTNode,
  type TypeError as CelTypeError,
  Environment,
  type ParseError,
} from '@marcbachmann/cel-js';
import { lineAndColumn } from '../edge/body';
import { InvalidInputError } from '../errors';
import { ALL_NOTIFICATIONS, declaredMetadata, type NotificationName } from '../notifications/catalog';
import { NotificationMetadataSchema } from '../notifications/metadata';
import { withArticle } from '../text';
import type { DeliveryPayload } from './history-model';

export const MAX_FILTER_BYTES = 2048;
const MAX_FILTER_NODES = 400;
const MAX_FILTER_DEPTH = 32;
const MAX_LIST_ELEMENTS = 200;
export const EVALUATION_BUDGET_MS = 10;

/** The payload's top-level fields and their CEL types (numbers arrive from JSON, hence `dyn`). */
const PAYLOAD_FIELDS = { text: 'string', metadata: 'map', webhookId: 'dyn', webhookName: 'string' } as const;
/** Top-level fields holding a scalar: nothing can be selected beneath them. */
const SCALAR_FIELDS = new Set(['text', 'webhookId', 'webhookName']);
/**
 * The metadata fields the schema declares; each holds a scalar (or null). Other metadata keys
 * are passed through from producers, so `metadata.<other>` may exist and is allowed.
 */
const DECLARED_METADATA = new Set(Object.keys(NotificationMetadataSchema.shape));

const COMPARISONS = new Set(['==', '!=', '<', '<=', '>', '>=', 'in']);
const STRUCTURAL = new Set(['value', 'id', '.', '[]', 'list', '?:', '||', '&&', '!_', '-_']);
/** Receiver functions allowed: the string functions and `size()`. */
const METHODS = new Set(['contains', 'startsWith', 'endsWith', 'size']);
/** Global functions allowed: `has()` (field presence) and `size(x)`. */
const FUNCTIONS = new Set(['has', 'size']);

const environment = Object.entries(PAYLOAD_FIELDS).reduce(
  (env, [name, type]) => env.registerVariable(name, type),
  new Environment({
    homogeneousAggregateLiterals: false,
    limits: {
      maxAstNodes: MAX_FILTER_NODES,
      maxDepth: MAX_FILTER_DEPTH,
      maxListElements: MAX_LIST_ELEMENTS,
      maxMapEntries: 0,
      maxCallArguments: 2,
    },
  }),
);

type Program = (context: DeliveryPayload) => unknown;

export interface CompiledFilter {
  readonly source: string;
  readonly program: Program;
}

/**
 * A filter's verdict on one payload. A failed evaluation counts as no match: `error` says why
 * (its message may quote the payload: a key read from it, a value), `kind` only what kind of
 * failure it was (`no_such_key`, `no_such_overload`, `time_bound`, …) — what may be logged.
 */
export type FilterDecision = { matched: true } | { matched: false; error?: string; kind?: string };

/** The kind of a CEL error (its code), or a generic one: never text taken from the payload. */
function errorKind(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && /^[a-z_]{1,40}$/.test(code) ? code : 'evaluation_error';
}

function refuse(scope: Pick<Scope, 'source' | 'field'>, offset: number, what: string): never {
  throw new InvalidInputError(`${scope.field}: ${what} at ${lineAndColumn(scope.source, offset)}`, {
    field: scope.field,
  });
}

/** `metadata.actionBy.x` → ['metadata', 'actionBy', 'x']; undefined when not a field path. */
function pathOf(node: ASTNode): string[] | undefined {
  if (node.op === 'id') return [node.args];
  if (node.op === '.') {
    const parent = pathOf(node.args[0]);
    return parent && [...parent, node.args[1]];
  }
  if (node.op === '[]' && node.args[1].op === 'value' && typeof node.args[1].args === 'string') {
    const parent = pathOf(node.args[0]);
    return parent && [...parent, node.args[1].args];
  }
  return undefined;
}

/**
 * The metadata keys the payload of these subscribed types can have: undefined (any key) when
 * one of them is open (the specification's types, whose producers may add keys) or is the
 * wildcard `ALL_NOTIFICATIONS` (the union of every type's metadata, hence open); otherwise the
 * union of the keys the catalog declares for them (the service's own notifications).
 */
function metadataKeysOf(types: readonly string[] | undefined): ReadonlySet<string> | undefined {
  if (types === undefined || types.includes(ALL_NOTIFICATIONS)) return undefined;
  const keys = new Set<string>();
  for (const type of types) {
    const declared = declaredMetadata(type as NotificationName);
    if (declared === undefined) return undefined;
    for (const key of declared) keys.add(key);
  }
  return keys;
}

interface Scope {
  source: string;
  /** The request field the filter came in, named by every refusal (`filter` by default). */
  field: string;
  /** The subscribed types (for the message) and the metadata keys their payloads can have. */
  types?: readonly string[];
  metadataKeys?: ReadonlySet<string>;
}

/** Refuses a path the payload can never have, naming the field. */
function checkPath(scope: Scope, node: ASTNode, path: string[]): void {
  const [root, first] = path;
  const name = path.join('.');
  if (root === undefined || !(root in PAYLOAD_FIELDS)) {
    refuse(
      scope,
      node.start,
      `the payload has no field ${root} (it has ${Object.keys(PAYLOAD_FIELDS).join(', ')})`,
    );
  }
  if (SCALAR_FIELDS.has(root) && path.length > 1) {
    refuse(
      scope,
      node.start,
      `the payload never has ${name}: ${root} is ${withArticle(PAYLOAD_FIELDS[root as 'text'])}`,
    );
  }
  if (root === 'metadata' && first !== undefined && DECLARED_METADATA.has(first) && path.length > 2) {
    refuse(scope, node.start, `the payload never has ${name}: metadata.${first} holds a single value`);
  }
  if (root === 'metadata' && first !== undefined && scope.metadataKeys && !scope.metadataKeys.has(first)) {
    refuse(
      scope,
      node.start,
      `the payload never has metadata.${first}: the subscribed types (${scope.types?.join(', ')}) carry only ${[...scope.metadataKeys].map((k) => `metadata.${k}`).join(', ')}`,
    );
  }
}

function children(node: ASTNode): ASTNode[] {
  switch (node.op) {
    case 'value':
    case 'id':
      return [];
    case '.':
    case '.?':
      return [node.args[0]];
    case 'call':
      return node.args[1];
    case 'rcall':
      return [node.args[1], ...node.args[2]];
    case 'list':
      return node.args;
    case 'map':
      return node.args.flat();
    case '!_':
    case '-_':
      return [node.args];
    default:
      return [...node.args];
  }
}

/** Walks the syntax tree: only the allowed subset, and only fields the payload can have. */
function checkSubset(scope: Scope, node: ASTNode): void {
  if (node.op === 'call' || node.op === 'rcall') {
    const name = node.args[0];
    const allowed = node.op === 'call' ? FUNCTIONS : METHODS;
    if (!allowed.has(name)) {
      const known =
        node.op === 'call' ? 'has() and size()' : 'contains(), startsWith(), endsWith() and size()';
      refuse(scope, node.start, `${name}() is not allowed in filters (allowed: ${known})`);
    }
  } else if (!STRUCTURAL.has(node.op) && !COMPARISONS.has(node.op)) {
    refuse(scope, node.start, `the operator ${node.op} is not allowed in filters`);
  }
  const path = node.op === 'id' || node.op === '.' || node.op === '[]' ? pathOf(node) : undefined;
  if (path) {
    checkPath(scope, node, path);
    return;
  }
  for (const child of children(node)) checkSubset(scope, child);
}

/**
 * Compiles a filter, or refuses it with an `InvalidInputError` naming where or what is wrong.
 * With `types` (the webhook's subscribed names), a metadata field none of their payloads can
 * have is refused too (see `metadataKeysOf`).
 */
export function compileFilter(source: string, types?: readonly string[], field = 'filter'): CompiledFilter {
  const bytes = Buffer.byteLength(source, 'utf8');
  if (bytes > MAX_FILTER_BYTES) {
    throw new InvalidInputError(`${field}: ${bytes} bytes; at most ${MAX_FILTER_BYTES} are allowed`, {
      field,
    });
  }
  const metadataKeys = metadataKeysOf(types);
  const scope: Scope = {
    source,
    field,
    ...(types ? { types } : {}),
    ...(metadataKeys ? { metadataKeys } : {}),
  };
  let parsed: ReturnType<Environment['parse']>;
  try {
    parsed = environment.parse(source);
  } catch (error) {
    const { summary, range } = error as ParseError;
    refuse(scope, range?.start ?? 0, `does not parse: ${summary ?? String(error)}`);
  }
  checkSubset(scope, parsed.ast);
  const checked = parsed.check();
  if (!checked.valid) {
    const { summary, range } = checked.error as CelTypeError;
    refuse(scope, range?.start ?? 0, `does not type-check: ${summary}`);
  }
  if (checked.type !== 'bool' && checked.type !== 'dyn') {
    refuse(
      scope,
      0,
      `a filter must give true or false, this one gives ${withArticle(checked.type ?? 'value')}`,
    );
  }
  return { source, program: parsed as Program };
}

/** One timed run of the program: its result or error, and how long it took. */
function run(
  filter: CompiledFilter,
  payload: DeliveryPayload,
  clock: () => number,
): { result?: unknown; error?: string; kind?: string; elapsed: number } {
  const started = clock();
  try {
    const result = filter.program(payload);
    return { result, elapsed: clock() - started };
  } catch (error) {
    return {
      error: (error as Partial<ParseError>).summary ?? String(error),
      kind: errorKind(error),
      elapsed: clock() - started,
    };
  }
}

/**
 * Evaluates a compiled filter. Never throws: a run-time error, a result that is not a boolean
 * or an evaluation past `EVALUATION_BUDGET_MS` is a non-match with its error. A run past the
 * bound is measured once more before it counts: a wall clock also counts a garbage collection
 * or the process waiting for a core, which says nothing about the expression, while an
 * expression that is really too costly is past the bound both times.
 */
export function evaluateFilter(
  filter: CompiledFilter,
  payload: DeliveryPayload,
  clock: () => number = performance.now.bind(performance),
): FilterDecision {
  let outcome = run(filter, payload, clock);
  if (outcome.error === undefined && outcome.elapsed > EVALUATION_BUDGET_MS) {
    outcome = run(filter, payload, clock);
  }
  if (outcome.error !== undefined) return { matched: false, error: outcome.error, kind: outcome.kind };
  if (outcome.elapsed > EVALUATION_BUDGET_MS) {
    return {
      matched: false,
      error: `evaluation took ${outcome.elapsed.toFixed(1)} ms, past the ${EVALUATION_BUDGET_MS} ms bound`,
      kind: 'time_bound',
    };
  }
  const { result } = outcome;
  if (typeof result !== 'boolean') {
    return {
      matched: false,
      error: `the filter gave ${typeof result}, not true or false`,
      kind: 'not_boolean',
    };
  }
  return result ? { matched: true } : { matched: false };
}

interface WebhookVersion {
  id: number;
  updatedAt: string;
  filter?: string | null;
}

type Compiled = { filter: CompiledFilter } | { error: string };

/** Compiled filters by webhook id, each for the `updatedAt` it was compiled at. */
const cache = new Map<number, { updatedAt: string; compiled: Compiled }>();
export const FILTER_CACHE_SIZE = 10_000;

/** The webhook's compiled filter, compiled once per webhook version (id and `updatedAt`). */
function compiledFor(webhook: WebhookVersion & { filter: string }): Compiled {
  const cached = cache.get(webhook.id);
  if (cached?.updatedAt === webhook.updatedAt) return cached.compiled;
  let compiled: Compiled;
  try {
    compiled = { filter: compileFilter(webhook.filter) };
  } catch (error) {
    compiled = { error: (error as Error).message };
  }
  cache.delete(webhook.id);
  if (cache.size >= FILTER_CACHE_SIZE) {
    const oldest = cache.keys().next();
    if (!oldest.done) cache.delete(oldest.value);
  }
  cache.set(webhook.id, { updatedAt: webhook.updatedAt, compiled });
  return compiled;
}

/**
 * Whether a webhook's filter lets the payload through. A webhook without a filter matches at no
 * cost; a stored filter that no longer compiles is a non-match with its error.
 */
export function filterDecision(
  webhook: WebhookVersion,
  payload: DeliveryPayload,
  clock?: () => number,
): FilterDecision {
  if (webhook.filter === undefined || webhook.filter === null) return { matched: true };
  const compiled = compiledFor({ ...webhook, filter: webhook.filter });
  if ('error' in compiled) return { matched: false, error: compiled.error, kind: 'does_not_compile' };
  return evaluateFilter(compiled.filter, payload, clock);
}

/** How many compiled filters are held (for tests of the cache). */
export function cachedFilterCount(): number {
  return cache.size;
}
