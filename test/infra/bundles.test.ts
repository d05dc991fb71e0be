/**
 * Every cataloged handler, bundled exactly as it is deployed, loads in a fresh Node process
 * and exports `handler` (a bundle that leaves out a module or crashes at module scope fails
 * here instead of in Lambda), and API bundles stay small. Each handler's directory is a whole
 * Lambda asset: it holds exactly the files its entry reaches (chunks loaded statically and on
 * demand) and every relative import in them resolves inside it.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_BUNDLE_LIMIT_BYTES, type BundleCheck, checkBundles, coldStartEnv } from '../../bench/cold-start';
import { HandlerBundles, type HandlerLayout, repoRoot } from '../../infra/constructs/bundles';
import { catalogHandlers } from '../../shared/catalog/handlers';
import { OPENAPI_FILE, SERVED_DOCUMENT_FILE } from '../../shared/openapi/document';

const run = promisify(execFile);

const CHECKS = 'functions/consumers/check-integrations.ts';
const OPENAPI = 'functions/service/openapi.ts';
/** Fixture handlers: two load a large module on demand, one a small one. */
const LAZY_YAML = 'test/infra/fixtures/lazy-yaml.ts';
const LAZY_ZOD = 'test/infra/fixtures/lazy-zod.ts';
const LAZY_SMALL = 'test/infra/fixtures/lazy-small.ts';
const FIXTURES = [LAZY_YAML, LAZY_ZOD, LAZY_SMALL];

let result: BundleCheck;
let bundles: HandlerBundles;
let handlers: string[];

beforeAll(async () => {
  // Inside the repository, as the bench's: the bundles resolve the runtime-provided `@aws-sdk/*`
  // from node_modules.
  const cache = join(repoRoot, 'node_modules', '.cache');
  mkdirSync(cache, { recursive: true });
  bundles = new HandlerBundles({ outDir: mkdtempSync(join(cache, 'causeway-test-bundles-')) });
  handlers = [...catalogHandlers().map((h) => h.handler), ...FIXTURES];
  bundles.prepare(handlers, 'test');
  // Each bundle imported in a fresh process of its own, as figure 5 does, a few at a time: this
  // checks that they load, not how fast (figure 5 times them, alone, in `npm run bench`).
  result = await checkBundles({ env: coldStartEnv(), bundles, concurrency: availableParallelism() + 1 });
  // A hang guard of its own, about ten times its 29 s alone: every handler bundled and imported
  // took 148 s in a full run on two cores and once passed the tier's 180 s (2026-11-27, 4cfde7e).
}, 300_000);

afterAll(() => {
  if (bundles) rmSync(bundles.outDir, { recursive: true, force: true });
});

/** Relative specifiers of static and dynamic imports and requires, as esbuild writes them. */
const RELATIVE_IMPORT =
  /(?:\bfrom|\bimport)\s*\(?\s*["'](\.\.?\/[^"']+)["']|\brequire\(\s*["'](\.\.?\/[^"']+)["']\s*\)/g;

/** Walks the relative imports from `index.mjs`: the files reached, and imports that miss. */
function walkImports(dir: string): { reached: Set<string>; unresolved: string[] } {
  const reached = new Set(['index.mjs']);
  const unresolved: string[] = [];
  const queue = ['index.mjs'];
  for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
    const text = readFileSync(join(dir, file), 'utf8');
    for (const m of text.matchAll(RELATIVE_IMPORT)) {
      const specifier = m[1] ?? m[2] ?? '';
      const target = relative(dir, resolve(dirname(join(dir, file)), specifier))
        .split(sep)
        .join('/');
      if (target.startsWith('..') || !existsSync(join(dir, target))) {
        unresolved.push(`${file} -> ${specifier}`);
      } else if (!reached.has(target)) {
        reached.add(target);
        if (target.endsWith('.mjs')) queue.push(target);
      }
    }
  }
  return { reached, unresolved };
}

/** Every file under `dir`, relative, `/`-separated. */
function filesUnder(dir: string, prefix = ''): string[] {
  return readdirSync(join(dir, prefix), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? filesUnder(dir, `${prefix}${e.name}/`) : [`${prefix}${e.name}`],
  );
}

const bytesOf = (layout: HandlerLayout, files: readonly string[]) =>
  files.reduce((n, f) => n + statSync(join(layout.dir, f)).size, 0);

describe('Lambda bundles', () => {
  it('exist for every cataloged handler', () => {
    expect(result.missing).toEqual([]);
    expect(result.rows.length).toBeGreaterThan(30);
  });

  it('all import in a fresh process and export a handler', () => {
    const broken = result.rows.filter((r) => r.importError).map((r) => `${r.handler}: ${r.importError}`);
    expect(broken).toEqual([]);
  });

  it('keep API handlers lean (no database drivers in API bundles)', () => {
    for (const row of result.rows.filter((r) => r.kind === 'api' || r.kind === 'authorizer')) {
      expect(row.bundleBytes, row.handler).toBeLessThanOrEqual(API_BUNDLE_LIMIT_BYTES);
    }
  });
});

describe('Lambda bundle directories', () => {
  it('hold exactly the files their entry reaches, and every import resolves inside them', () => {
    for (const handler of handlers) {
      const layout = bundles.layout(handler, 'test');
      const { reached, unresolved } = walkImports(layout.dir);
      expect(unresolved, handler).toEqual([]);
      const present = filesUnder(layout.dir).filter((f) => !layout.dataFiles.includes(f));
      const code = present.filter((f) => !f.endsWith('.map'));
      expect(code.sort(), handler).toEqual([...reached].sort());
      expect([...layout.codeFiles].sort(), handler).toEqual(code.filter((f) => f.endsWith('.mjs')).sort());
      // Each JavaScript file ships with its source map, and no map without its file.
      expect(present.filter((f) => f.endsWith('.map')).sort(), handler).toEqual(
        code
          .filter((f) => f.endsWith('.mjs'))
          .map((f) => `${f}.map`)
          .sort(),
      );
    }
  });

  it('hold the files their modules read beside themselves, and answer from them', async () => {
    const withData = handlers.filter((h) => bundles.layout(h, 'test').dataFiles.length > 0);
    expect(withData).toEqual([OPENAPI]);
    const openapi = bundles.layout(OPENAPI, 'test');
    expect(openapi.dataFiles).toEqual(['served-document.json']);
    expect(readFileSync(join(openapi.dir, 'served-document.json'), 'utf8')).toBe(
      readFileSync(SERVED_DOCUMENT_FILE, 'utf8'),
    );
    // The bundle reads it on its first request: the answer is the document, this server first.
    const script = `
      const { handler } = await import(process.argv[1]);
      const host = 'api.example.test';
      const res = await handler(
        { routeKey: 'GET /openapi.json', rawPath: '/openapi.json', headers: { host },
          requestContext: { domainName: host, http: { method: 'GET', path: '/openapi.json', sourceIp: '10.0.0.1' } } },
        { functionName: 'openapi', awsRequestId: 'test', getRemainingTimeInMillis: () => 10_000 },
      );
      process.stdout.write(JSON.stringify(res));
    `;
    const { stdout } = await run(
      process.execPath,
      ['--input-type=module', '-e', script, pathToFileURL(join(openapi.dir, 'index.mjs')).href],
      { env: coldStartEnv(), cwd: repoRoot, timeout: 60_000 },
    );
    const res = JSON.parse(stdout) as { statusCode: number; body: string };
    const document = JSON.parse(readFileSync(OPENAPI_FILE, 'utf8')) as { servers: unknown[] };
    const here = { url: 'https://api.example.test', description: 'This server.' };
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe(JSON.stringify({ ...document, servers: [here, ...document.servers] }));
  });

  it('give a handler the chunk it loads on demand, and no other handler that chunk', () => {
    const chunksOf = (handler: string) =>
      bundles.layout(handler, 'test').codeFiles.filter((f) => /^chunks\/heavy-(yaml|zod)-/.test(f));
    expect(chunksOf(LAZY_YAML)).toEqual([expect.stringMatching(/^chunks\/heavy-yaml-[A-Z0-9]+\.mjs$/)]);
    expect(chunksOf(LAZY_ZOD)).toEqual([expect.stringMatching(/^chunks\/heavy-zod-[A-Z0-9]+\.mjs$/)]);
    for (const handler of handlers.filter((h) => h !== LAZY_YAML && h !== LAZY_ZOD)) {
      expect(chunksOf(handler), handler).toEqual([]);
    }
    // The large module is not loaded at init.
    const yaml = bundles.layout(LAZY_YAML, 'test');
    expect(yaml.initFiles.some((f) => f.includes('heavy-yaml'))).toBe(false);
  });

  it('keep a handler whose on-demand code is small in one file', () => {
    const small = bundles.layout(LAZY_SMALL, 'test');
    expect(filesUnder(small.dir).sort()).toEqual(['index.mjs', 'index.mjs.map']);
    expect(readFileSync(join(small.dir, 'index.mjs'), 'utf8')).toContain('hello ');
  });

  it('load check-integrations’ drivers on demand: init reads a fraction of its code', () => {
    const checks = bundles.layout(CHECKS, 'test');
    expect(checks.codeFiles.some((f) => /^chunks\/driver-[A-Z0-9]+\.mjs$/.test(f))).toBe(true);
    expect(checks.initFiles.some((f) => f.includes('driver-'))).toBe(false);
    expect(bytesOf(checks, checks.initFiles)).toBeLessThan(1024 * 1024);
    expect(bytesOf(checks, checks.codeFiles)).toBeGreaterThan(4 * 1024 * 1024);
  });

  it('import check-integrations in a fresh process, then each chunk it loads on demand', async () => {
    const checks = bundles.layout(CHECKS, 'test');
    const onDemand = checks.codeFiles.filter((f) => !checks.initFiles.includes(f));
    expect(onDemand.length).toBeGreaterThan(0);
    const script = `
      const [entry, ...chunks] = process.argv.slice(1);
      const mod = await import(entry);
      if (typeof mod.handler !== 'function') throw new Error('no handler export');
      for (const chunk of chunks) await import(chunk);
      process.stdout.write(JSON.stringify({ loaded: chunks.length }));
    `;
    const href = (f: string) => pathToFileURL(join(checks.dir, f)).href;
    const { stdout } = await run(
      process.execPath,
      ['--input-type=module', '-e', script, href('index.mjs'), ...onDemand.map(href)],
      { env: coldStartEnv(), cwd: repoRoot, timeout: 60_000 },
    );
    expect(JSON.parse(stdout)).toEqual({ loaded: onDemand.length });
  });
});
