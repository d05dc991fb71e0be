/**
 * Hostile and malformed bodies on every route that takes a body, against a local cloud of this
 * file's own (so the before/after table snapshot sees only these requests).
 *
 * Bodies are generated with fast-check from valid payloads and mutated — unknown keys, dropped
 * keys, wrong types, huge strings, deep nesting, `__proto__`/`constructor` keys — in JSON and,
 * where the route accepts it, YAML. The route's zod schema is the oracle: a generated body the
 * schema would accept is discarded, so every body sent is invalid by the contract. Fixed hostile
 * bodies (YAML alias bombs, `!!binary`, merge keys, duplicate keys, a 7 MB body, …) are sent to
 * every route too. Every answer must be a 4xx with the error shape, never a 5xx, and no table may
 * change.
 *
 * Over 400 lines: the generators and the fixed hostile bodies for every route live together, so
 * a new route is covered in one place.
 */
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import type * as z from 'zod/mini';
import { type RouteDef, routeKey, routes } from '../../shared/catalog/routes';
import { contracts } from '../../shared/openapi/contracts';
import { cloudWarehouseSchemas } from '../../shared/platforms/cloud-warehouse/schema';
import { IntegrationPayloadSchema } from '../../shared/platforms/payload-schema';
import { WebhookInputSchema } from '../../shared/webhooks/model';
import { type RunningCloud, startCloudProcess } from '../support/local-cloud-process';
import { deleteBodies, type Payload, payloads, uid } from '../unit/integrations/fixtures';
import { pool, type Reply, request, snapshotTables, type TableSnapshot } from './support';

const BODIES_PER_ROUTE = 1000;
const CONCURRENCY = 16;
const SEED = Number(process.env.HARDENING_SEED ?? 20_261_121);

type Json = unknown;

interface BodyRoute {
  route: RouteDef;
  seeds: () => Payload[];
  /** True when the service must accept the body (such bodies are never sent). */
  accepts: (body: Json) => boolean;
  yaml: boolean;
}

const ok = (schema: z.ZodMiniType, body: Json) => schema.safeParse(body).success;
const SQL_TYPES = ['AnalyticsWarehouse', 'ClusterWarehouse', 'CloudWarehouse', 'Lakehouse'];
const manual = () =>
  Object.values(payloads(uid()))
    .filter((p) => SQL_TYPES.includes(p.type))
    .map((p) => ({ ...p, autoBootstrap: false }));
const webhookEntry = (n: number) => ({
  url: `http://127.0.0.1:9/bad-input/${n}`,
  name: `bad input ${n}`,
  global: false,
  notificationType: ['modelAccessRequested'],
  actionType: 'triggered',
  secret: 'whsec_MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=',
});

/** Valid bodies of the webhook routes that address one webhook (their schemas are the oracle). */
const WEBHOOK_BODIES: Record<string, Payload[]> = {
  'PATCH /webhooks/{id}': [
    { name: 'renamed' } as Payload,
    {
      url: 'http://127.0.0.1:9/bad-input/patched',
      notificationType: ['modelAccessRequested'],
      maxDeliveriesPerSecond: 5,
    } as Payload,
  ],
  'POST /webhooks/{id}/disable': [{ reason: 'maintenance' } as Payload],
  'POST /webhooks/{id}/secret/rotate': [
    { secret: 'whsec_MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=' } as Payload,
  ],
  'POST /webhooks/{id}/test': [{ notificationType: 'modelAccessRequested' } as Payload],
  'POST /webhooks/{id}/ordering-keys/{key}/skip': [{ headDeliveryId: `msg_${'0'.repeat(32)}_1` } as Payload],
  'POST /webhooks/{id}/recover': [
    { since: '2026-01-01T00:00:00Z', until: '2026-01-02T00:00:00Z', onlyFailed: false } as Payload,
  ],
  'POST /webhooks/filters/preview': [
    {
      filter: 'has(metadata.modelId) && metadata.modelId == 7',
      notificationType: 'modelAccessRequested',
      limit: 10,
    } as Payload,
  ],
};

/** Every route taking a body, from the route table and the contracts, with its seeds and oracle. */
function bodyRoutes(): BodyRoute[] {
  const list: BodyRoute[] = [];
  for (const route of routes as readonly RouteDef[]) {
    const key = routeKey(route);
    const contract = contracts[key as keyof typeof contracts];
    const yaml = (contract?.bodyFormats ?? []).some((f) => f.mediaType.includes('yaml'));
    if (key === 'POST /integrations' || key === 'PUT /integrations/{id}') {
      list.push({
        route,
        seeds: () => Object.values(payloads(uid())),
        accepts: (b) => ok(IntegrationPayloadSchema, b),
        yaml,
      });
    } else if (key === 'POST /webhooks') {
      // Valid entries are created even when others are refused: a body is "accepted" when any
      // entry would be.
      list.push({
        route,
        seeds: () => [{ webhooks: [webhookEntry(1)] }, { webhooks: [webhookEntry(2), webhookEntry(3)] }],
        accepts: (b) => {
          const entries = (b as { webhooks?: unknown })?.webhooks;
          return Array.isArray(entries) && entries.some((e) => ok(WebhookInputSchema, e));
        },
        yaml,
      });
    } else if (key === 'DELETE /integrations/{id}') {
      list.push({
        route,
        seeds: () => [deleteBodies(uid()).CloudWarehouse as Payload],
        accepts: (b) => ok(cloudWarehouseSchemas().deletion, b),
        yaml: true,
      });
    } else if (key === 'POST /data-sources' && contract?.body) {
      // The integration under test is no ObjectStore: a body the schema accepts is a 400 there.
      const envelope = contract.documentedBody ?? contract.body;
      list.push({
        route,
        seeds: () => [
          {
            type: 'ObjectStore',
            integrationId: Number(integrationId) || 1,
            dataSources: [
              { dataSourceName: `sales-${uid()}`, prefix: 's3://bucket/data/sales/' },
              { dataSourceName: `object-${uid()}`, prefix: 's3://bucket/data/2026/orders.csv' },
            ],
          },
        ],
        accepts: (b) => ok(envelope, b),
        yaml,
      });
    } else if (WEBHOOK_BODIES[key] && contract?.body) {
      const schema = contract.body;
      list.push({ route, seeds: () => WEBHOOK_BODIES[key] ?? [], accepts: (b) => ok(schema, b), yaml });
    } else if (contract?.body && route.method !== 'GET') {
      // The documented shape (the edge validates the envelope, the use case the rest).
      const envelope = contract.documentedBody ?? contract.body;
      list.push({
        route,
        seeds: manual,
        accepts: (b) => ok(envelope, b) && ok(IntegrationPayloadSchema, b),
        yaml,
      });
    }
  }
  return list;
}

// ── mutations ──────────────────────────────────────────────────────────────────────────────

type Path = (string | number)[];

function paths(value: Json, prefix: Path = []): Path[] {
  // Mutations target the payload's own levels, not the inside of an injected deep nest.
  if (value === null || typeof value !== 'object' || prefix.length >= 6) return [prefix];
  const entries = Array.isArray(value) ? value.map((v, i) => [i, v] as const) : Object.entries(value);
  return [prefix, ...entries.flatMap(([k, v]) => paths(v, [...prefix, k]))];
}

function parentOf(
  root: Json,
  path: Path,
): { parent: Record<string | number, Json> | undefined; last: string | number | undefined } {
  let node = root as Record<string | number, Json>;
  for (const step of path.slice(0, -1)) {
    const next = node?.[step];
    if (next === null || typeof next !== 'object') return { parent: undefined, last: undefined };
    node = next as Record<string | number, Json>;
  }
  return { parent: node, last: path[path.length - 1] };
}

function objectAt(root: Json, path: Path): Record<string, Json> | undefined {
  let node = root;
  for (const step of path) node = (node as Record<string | number, Json> | null)?.[step];
  return node !== null && typeof node === 'object' && !Array.isArray(node)
    ? (node as Record<string, Json>)
    : undefined;
}

function depth(value: Json): number {
  if (value === null || typeof value !== 'object') return 0;
  let max = 0;
  for (const v of Object.values(value)) max = Math.max(max, depth(v));
  return max + 1;
}

function nested(depth: number): Json {
  let v: Json = 'bottom';
  for (let i = 0; i < depth; i++) v = i % 2 ? [v] : { n: v };
  return v;
}

const HUGE_MAX = 600_000;
const HUGE = 'h'.repeat(HUGE_MAX);

/** The hugeString mutation's value: a slice of one string, so `writtenVerbatim` knows it in O(1). */
const huge = (size: number) => HUGE.slice(0, size);

/**
 * A string JSON and YAML (plain, `lineWidth: 0`) write as it is: all `h`. A string equal to a
 * prefix of `HUGE` is compared by memcmp, not scanned character by character as the writers do.
 */
const writtenVerbatim = (v: unknown): v is string =>
  typeof v === 'string' && v.length >= 70_000 && v === HUGE.slice(0, v.length);

const wrongValue = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.integer(), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.integer(), { maxKeys: 2 }),
  fc.string({ maxLength: 20 }),
  fc.constant(''),
  fc.constant('[REDACTED]'),
  fc.constant('x'.repeat(5000)),
);

const mutation = fc.oneof(
  fc.record({
    kind: fc.constant('unknownKey' as const),
    at: fc.nat(),
    key: fc.string({ minLength: 1, maxLength: 12 }),
    value: fc.jsonValue({ maxDepth: 2 }),
  }),
  fc.record({ kind: fc.constant('drop' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('wrongType' as const), at: fc.nat(), value: wrongValue }),
  fc.record({
    kind: fc.constant('hugeString' as const),
    at: fc.nat(),
    size: fc.integer({ min: 70_000, max: HUGE_MAX }),
  }),
  fc.record({ kind: fc.constant('deep' as const), at: fc.nat(), depth: fc.integer({ min: 33, max: 3000 }) }),
  fc.record({
    kind: fc.constant('forbiddenKey' as const),
    at: fc.nat(),
    key: fc.constantFrom('__proto__', 'constructor', 'prototype'),
  }),
);
type Mutation = typeof mutation extends fc.Arbitrary<infer M> ? M : never;

function apply(body: Json, m: Mutation): Json {
  const all = paths(body);
  const path = all[m.at % all.length] as Path;
  if (m.kind === 'unknownKey' || m.kind === 'forbiddenKey') {
    const objects = all.filter((p) => objectAt(body, p));
    const target = objectAt(body, objects[m.at % objects.length] ?? []);
    if (!target) return body;
    const key = m.kind === 'forbiddenKey' ? m.key : `x_${m.key}`;
    Object.defineProperty(target, key, {
      value: m.kind === 'forbiddenKey' ? { polluted: true } : m.value,
      enumerable: true,
      configurable: true,
      writable: true,
    });
    return body;
  }
  if (path.length === 0) {
    if (m.kind === 'wrongType') return m.value;
    if (m.kind === 'deep') return nested(m.depth);
    if (m.kind === 'hugeString') return huge(m.size);
    return undefined;
  }
  const { parent, last } = parentOf(body, path);
  if (!parent || last === undefined) return body;
  if (m.kind === 'drop') {
    if (Array.isArray(parent)) parent.splice(Number(last), 1);
    else delete parent[last];
  } else if (m.kind === 'wrongType') parent[last] = m.value;
  else if (m.kind === 'hugeString') parent[last] = huge(m.size);
  else if (m.kind === 'deep') parent[last] = nested(m.depth);
  return body;
}

/**
 * The copy `structuredClone` makes of a generated body (plain objects and arrays of JSON values,
 * own `__proto__` keys kept as own keys), its strings shared rather than copied: the oracle reads
 * hugeString's up to 600,000 characters, and strings cannot be changed.
 */
function copy(value: Json): Json {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(copy);
  const out: Record<string, Json> = {};
  for (const [key, v] of Object.entries(value)) {
    if (key === '__proto__') {
      Object.defineProperty(out, key, {
        value: copy(v),
        enumerable: true,
        configurable: true,
        writable: true,
      });
    } else out[key] = copy(v);
  }
  return out;
}

interface Sent {
  text: string;
  contentType: string;
}

function generate(target: BodyRoute, count: number, seed: number): Sent[] {
  const seeds = target.seeds();
  const arb = fc
    .record({
      seed: fc.nat({ max: seeds.length - 1 }),
      mutations: fc.array(mutation, { minLength: 1, maxLength: 3 }),
      yaml: target.yaml ? fc.boolean() : fc.constant(false),
    })
    .map(({ seed: s, mutations, yaml }) => {
      let body: Json = structuredClone(seeds[s]);
      for (const m of mutations) body = apply(body, m);
      return { body, yaml };
    })
    // Bodies nested deeper than the service's limit are refused before validation (and would
    // overflow the schema walk); everything else is judged by the route's schema.
    .filter(({ body }) => body !== undefined && (depth(body) > 32 || !target.accepts(copy(body))));
  return fc.sample(arb, { numRuns: count, seed }).map(({ body, yaml }) => {
    // The YAML writer recurses per level; very deep bodies go as JSON (written the plain way: a
    // replacer costs JSON.stringify the stack depth a 3000-level nest needs).
    if (depth(body) > 100) return { text: JSON.stringify(body), contentType: 'application/json' };
    return yaml
      ? { text: write(body, 'yaml'), contentType: 'application/yaml' }
      : { text: write(body, 'json'), contentType: 'application/json' };
  });
}

const TOKEN = `hugestring${randomUUID().replace(/-/g, '')}n`;

/**
 * `JSON.stringify(body)` or the YAML of `body`, byte for byte, without the writers scanning the
 * hugeString mutation's strings (1.5 GB a run, most of this file's own CPU): each is written as a
 * token and put back verbatim. Should the tokens not come back exactly once each, the body is
 * written the plain way.
 */
function write(body: Json, format: 'json' | 'yaml'): string {
  const plain = () =>
    format === 'json'
      ? JSON.stringify(body)
      : stringify(body, { aliasDuplicateObjects: false, lineWidth: 0 });
  const long: string[] = [];
  const replacer = (_key: unknown, v: unknown) => (writtenVerbatim(v) ? `${TOKEN}${long.push(v) - 1}x` : v);
  const text =
    format === 'json'
      ? JSON.stringify(body, replacer)
      : stringify(body, replacer, { aliasDuplicateObjects: false, lineWidth: 0 });
  if (long.length === 0) return text;
  const quote = format === 'json' ? '"' : '';
  const parts = text.split(new RegExp(`${quote}${TOKEN}(\\d+)x${quote}`));
  if (parts.length !== 2 * long.length + 1) return plain();
  let out = parts[0] as string;
  for (let i = 0; i < long.length; i++) {
    if (parts[2 * i + 1] !== String(i)) return plain();
    out += `${quote}${long[i]}${quote}${parts[2 * i + 2]}`;
  }
  return out;
}

/** Bodies no generator produces: parser attacks and size limits. */
function hostile(target: BodyRoute): Sent[] {
  const seed = target.seeds()[0] as Payload;
  const json = (text: string): Sent => ({ text, contentType: 'application/json' });
  const yaml = (text: string): Sent => ({ text, contentType: 'application/yaml' });
  const laughs = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
  for (let i = 1; i < 10; i++) {
    const prev = String.fromCharCode(96 + i);
    const cur = String.fromCharCode(97 + i);
    laughs.push(
      `${cur}: &${cur} [*${prev},*${prev},*${prev},*${prev},*${prev},*${prev},*${prev},*${prev},*${prev}]`,
    );
  }
  const firstKey = Object.keys(seed)[0] ?? 'type';
  const list: Sent[] = [
    json('{"type": '),
    json('not json at all'),
    json('null'),
    json('[]'),
    json('42'),
    json('"a string"'),
    json('{}'),
    json(`{"__proto__": {"isAdmin": true}, ${JSON.stringify(seed).slice(1)}`),
    json(`{"constructor": {"prototype": {"polluted": true}}, ${JSON.stringify(seed).slice(1)}`),
    // Duplicate keys: JSON takes the last, which is invalid here.
    json(`${JSON.stringify(seed).slice(0, -1)}, ${JSON.stringify(firstKey)}: {"dup": true}}`),
    json(`${'['.repeat(100_000)}${']'.repeat(100_000)}`),
    json(`{"x": "${'\\u0000'.repeat(1000)}"}`),
    // 7 MB: over the 6 MB Lambda payload limit.
    json(JSON.stringify({ ...seed, padding: 'p'.repeat(7 * 1024 * 1024) })),
    // Just under the limit: must still be refused cleanly.
    json(JSON.stringify({ ...seed, padding: 'p'.repeat(5 * 1024 * 1024) })),
    { text: JSON.stringify(seed), contentType: 'text/plain' },
    { text: JSON.stringify(seed), contentType: 'application/x-www-form-urlencoded' },
  ];
  if (target.yaml) {
    list.push(
      yaml(laughs.join('\n')),
      yaml(`${laughs.join('\n')}\ntype: *j`),
      yaml(`type: !!binary aGVsbG8=\n${stringify({ ...seed, type: undefined })}`),
      yaml(
        `base: &base\n  host: merged.example.com\nconfig:\n  <<: *base\ntype: ${String(seed.type ?? 'x')}`,
      ),
      yaml(`${stringify(seed)}${firstKey}: duplicate\n`),
      yaml('type: !custom-tag value'),
      yaml('? [complex, key]\n: value'),
      yaml(`${'- '.repeat(500)}deep`),
      yaml('type: CloudWarehouse\n\tbad: tab'),
      yaml(`__proto__:\n  isAdmin: true\n${stringify(seed)}`),
      yaml('%YAML 1.1\n---\ntype: yes'),
    );
  }
  return list;
}

// ── the test ───────────────────────────────────────────────────────────────────────────────

let cloud: RunningCloud;
let integrationId = '';
let before: TableSnapshot;
const targets = bodyRoutes();

beforeAll(async () => {
  // Every request carries the admin key: its authorizer result is cached, as API Gateway does on
  // dev and prod, so the 15,000 requests cost what their bodies cost, not two key lookups each.
  cloud = await startCloudProcess({ env: { LOG_LEVEL: 'WARN', LOCAL_AUTHORIZER_CACHE_SECONDS: '60' } });
  const base = cloud.endpoints.gateway;
  const created = await request(base, 'POST', '/integrations', {
    key: cloud.adminApiKey,
    body: payloads(uid()).CloudWarehouse,
  });
  expect(created.status, created.text).toBe(202);
  integrationId = String(created.body.id);
  const deadline = Date.now() + 30_000;
  let status = '';
  while (Date.now() < deadline) {
    status = (await request(base, 'GET', `/integrations/${integrationId}/status`, { key: cloud.adminApiKey }))
      .body?.status;
    if (status !== 'creating') break;
    await new Promise((r) => setTimeout(r, 100));
  }
  expect(status).toBe('enabled');
  before = await snapshotTables(cloud.endpoints);
});

afterAll(async () => {
  await cloud?.stop();
});

describe('hostile and malformed bodies', () => {
  it('covers every write route that takes a body', () => {
    expect(targets.map((t) => routeKey(t.route)).sort()).toEqual(
      [
        'DELETE /integrations/{id}',
        'POST /integrations',
        'POST /integrations/scripts/cleanup',
        'POST /integrations/scripts/create',
        'POST /integrations/scripts/initial-create',
        'POST /integrations/scripts/post-cleanup',
        'POST /integrations/{id}/scripts/edit',
        'POST /webhooks',
        'PATCH /webhooks/{id}',
        'POST /data-sources',
        'POST /webhooks/{id}/disable',
        'POST /webhooks/{id}/secret/rotate',
        'POST /webhooks/{id}/test',
        'POST /webhooks/{id}/recover',
        'POST /webhooks/{id}/ordering-keys/{key}/skip',
        'POST /webhooks/filters/preview',
        'PUT /integrations/{id}',
      ].sort(),
    );
  });

  it.each(targets.map((t) => [routeKey(t.route), t] as const))(
    `%s: ${BODIES_PER_ROUTE} generated bodies and the fixed hostile set → 4xx with the error shape`,
    async (key, target) => {
      // A fixed body the route's schema accepts (`{}` where the body is optional) is not hostile.
      const accepted = (sent: Sent) => {
        if (sent.contentType !== 'application/json') return false;
        try {
          return target.accepts(JSON.parse(sent.text));
        } catch {
          return false;
        }
      };
      const bodies = [
        ...generate(target, BODIES_PER_ROUTE, SEED),
        ...hostile(target).filter((s) => !accepted(s)),
      ];
      expect(bodies.length).toBeGreaterThanOrEqual(BODIES_PER_ROUTE);
      const path = target.route.path.replace('{id}', integrationId);
      const failures: string[] = [];
      await pool(bodies, CONCURRENCY, async (sent) => {
        let reply: Reply;
        try {
          reply = await request(cloud.endpoints.gateway, target.route.method, path, {
            key: cloud.adminApiKey,
            raw: sent.text,
            contentType: sent.contentType,
          });
        } catch (error) {
          failures.push(
            `transport error ${(error as Error).message} (${String((error as { cause?: { code?: string } }).cause?.code)}) for ${sent.text.length} bytes: ${sent.text.slice(0, 120)}`,
          );
          return;
        }
        const shapeOk =
          reply.body &&
          reply.body.statusCode === reply.status &&
          typeof reply.body.error === 'string' &&
          typeof reply.body.message === 'string';
        if (reply.status < 400 || reply.status >= 500 || !shapeOk) {
          failures.push(
            `${reply.status} ${reply.text.slice(0, 160)} ← ${sent.contentType} ${sent.text.slice(0, 200)}`,
          );
        }
      });
      expect(failures, `${key} (seed ${SEED}): ${failures.slice(0, 5).join('\n')}`).toEqual([]);
    },
  );

  it('answers a 5 MB YAML body of 150,000 keys with a 4xx in under 2 s, and stays responsive', async () => {
    const lines = ['type: CloudWarehouse', 'autoBootstrap: false', 'config:'];
    for (let i = 0; lines.join('\n').length < 5 * 1024 * 1024 && i < 1_000_000; i += 1000)
      for (let j = i; j < i + 1000; j++) lines.push(`  key${j}: value-${j}-${'v'.repeat(16)}`);
    const text = lines.join('\n');
    expect(text.length).toBeGreaterThanOrEqual(5 * 1024 * 1024);
    const started = performance.now();
    const reply = await request(cloud.endpoints.gateway, 'POST', '/integrations', {
      key: cloud.adminApiKey,
      raw: text,
      contentType: 'application/yaml',
    });
    const elapsedMs = performance.now() - started;
    expect(reply.status).toBeGreaterThanOrEqual(400);
    expect(reply.status).toBeLessThan(500);
    expect(reply.body?.message).toMatch(/YAML request body exceeds the limit/);
    expect(elapsedMs).toBeLessThan(2000);
    const health = await request(cloud.endpoints.gateway, 'GET', '/health', {});
    expect(health.status).toBe(200);
  });

  it('left every table unchanged (no partial writes)', async () => {
    const after = await snapshotTables(cloud.endpoints);
    expect(after).toEqual(before);
  });

  it('still serves the integration afterwards', async () => {
    const read = await request(cloud.endpoints.gateway, 'GET', `/integrations/${integrationId}`, {
      key: cloud.adminApiKey,
    });
    expect(read.status).toBe(200);
    expect(read.body.status).toBe('enabled');
  });
});
