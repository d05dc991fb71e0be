/**
 * Figure 5 — cold start. Every cataloged handler is bundled exactly as CDK deploys it
 * (`HandlerBundles`: ESM, minified, `@aws-sdk/*` external; a directory per handler with
 * `index.mjs` and, for handlers that load most of their code on demand, the chunks it imports),
 * next to an empty handler bundled the same way. A bundle's size is what its init reads: the
 * entry and the chunks it imports statically. Each bundle is then imported in a fresh Node process (the repo's
 * Node 24) several times, interleaved with the empty one so drift hits both alike. We record:
 * - `importMs`: from just before `import()` to the module having run its module scope;
 * - `initMs`: from the process's time origin to the same point — runtime start plus import,
 *   the analogue of Lambda's Init Duration.
 * Two baselines, probed in the same interleaved rounds:
 * - the empty handler (a reported ratio: any function that builds an AWS SDK client spends most
 *   of its init loading `@aws-sdk/*`, which the empty handler does not);
 * - the handler's SDK twin (the target, ≤ 1.3): a handler that imports the same `@aws-sdk/*`
 *   packages as the bundle and builds one client of each at module scope, and nothing else. The
 *   SDK stays external in every bundle, so the twin's bundle is exactly those imports and
 *   constructions; the ratio measures our own module-scope work (zod schemas, Powertools, middy,
 *   catalogs) on top of what any function using those clients pays.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { HandlerBundles, repoRoot } from '../infra/constructs/bundles';
import { clientEnvironment, localDeliveryPrincipalArn } from '../infra/local/env';
import { loadStage, stageEnvironment } from '../infra/stages';
import { internalFunctions } from '../shared/catalog/functions';
import { type HandlerKind as CatalogedKind, catalogHandlers } from '../shared/catalog/handlers';
import { queues } from '../shared/catalog/queues';
import { tables } from '../shared/catalog/tables';
import { workflows } from '../shared/catalog/workflows';
import { median, round } from './lib/stats';

const run = promisify(execFile);

const EMPTY_HANDLER = 'bench/fixtures/empty-handler.ts';
export const API_BUNDLE_LIMIT_BYTES = 300 * 1024;
/** The empty-handler ratio the first version of this figure aimed at (reported, not a target). */
const INIT_RATIO_LIMIT = 2;
export const SDK_TWIN_RATIO_LIMIT = 1.3;

/** A cataloged handler's kind, or the empty handler every figure is measured against. */
type HandlerKind = CatalogedKind | 'baseline';

interface ColdStartRow {
  handler: string;
  kind: HandlerKind;
  bundleBytes: number;
  importMs: number;
  initMs: number;
  importRatio: number;
  initRatio: number;
  /** The `@aws-sdk/*` packages the bundle imports (its SDK twin imports the same). */
  sdkPackages: string[];
  /** The SDK twin's median init (ms) and this handler's init over it. */
  sdkTwinInitMs: number;
  /** The median of `sdkTwinRatioRuns`: each run's ratio of medians. */
  sdkTwinRatio: number;
  /** The ratio in each run (`repeats` runs of `runs` interleaved rounds). */
  sdkTwinRatioRuns: number[];
  /** Set when the bundle could not be imported at all. */
  importError?: string;
}

export interface ColdStartResult {
  runs: number;
  /** Whole runs measured one after another; a ratio is the median of the runs' ratios. */
  repeats: number;
  node: string;
  baseline: { bundleBytes: number; importMs: number; initMs: number };
  rows: ColdStartRow[];
  /** Cataloged handler modules that do not exist (cannot be measured; counts as a miss). */
  missing: string[];
  maxApiBundleBytes: number;
  maxInitRatio: number;
  /** Highest handler-to-SDK-twin init ratio among the kinds held to the target. */
  maxSdkTwinRatio: number;
  targets: {
    apiBundlesWithinLimit: boolean;
    initRatioWithinLimit: boolean;
    sdkTwinRatioWithinLimit: boolean;
  };
}

const PROBE = `
const started = performance.now();
const mod = await import(process.argv[1]);
const ready = performance.now();
if (typeof mod.handler !== 'function') { console.error('no handler export'); process.exit(3); }
process.stdout.write(JSON.stringify({ importMs: ready - started, initMs: ready }));
`;

async function probe(bundle: string, env: NodeJS.ProcessEnv): Promise<{ importMs: number; initMs: number }> {
  const { stdout } = await run(
    process.execPath,
    ['--input-type=module', '-e', PROBE, pathToFileURL(bundle).href],
    {
      env,
      cwd: repoRoot,
      timeout: 60_000,
    },
  );
  return JSON.parse(stdout) as { importMs: number; initMs: number };
}

/** The `@aws-sdk/*` packages a bundle's files import (they stay external, so appear by name). */
function sdkPackagesOf(bundleFiles: readonly string[]): string[] {
  const found = new Set<string>();
  for (const file of bundleFiles) {
    const code = readFileSync(file, 'utf8');
    for (const m of code.matchAll(/["'](@aws-sdk\/[a-z0-9-]+)["']/g)) if (m[1]) found.add(m[1]);
  }
  return [...found].sort();
}

/**
 * Writes the SDK twin of a bundle that imports `packages`: the same imports, one client of each
 * `client-*` package built at module scope (and the document client over DynamoDB's when the
 * bundle uses `lib-dynamodb`), the same empty handler.
 */
function writeSdkTwin(outDir: string, packages: readonly string[]): string {
  const id = createHash('sha256').update(packages.join(',')).digest('hex').slice(0, 8);
  const dir = join(outDir, `sdk-twin-${id}`);
  const file = join(dir, 'index.mjs');
  if (existsSync(file)) return file;
  mkdirSync(dir, { recursive: true });
  const lines = packages.map((p, i) => `import * as p${i} from '${p}';`);
  lines.push(
    'const clientOf = (m) => Object.keys(m).find((k) => /^[A-Z][A-Za-z0-9]*Client$/.test(k) && !/Document/.test(k));',
    'const built = [];',
  );
  packages.forEach((p, i) => {
    if (p.startsWith('@aws-sdk/client-'))
      lines.push(`{ const C = p${i}[clientOf(p${i})]; if (C) built.push(new C({})); }`);
  });
  const doc = packages.indexOf('@aws-sdk/lib-dynamodb');
  const ddb = packages.indexOf('@aws-sdk/client-dynamodb');
  if (doc >= 0 && ddb >= 0)
    lines.push(`built.push(p${doc}.DynamoDBDocumentClient.from(new p${ddb}.DynamoDBClient({})));`);
  lines.push('export const handler = async () => ({ statusCode: 200, clients: built.length });');
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

function freshBenchDir(): string {
  const dir = join(repoRoot, 'node_modules', '.cache', 'causeway-bench', 'bundles');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** A handler's bundle as its cold start reads it: the entry and the chunks it imports statically. */
interface BundledHandler {
  handler: string;
  kind: HandlerKind;
  file: string;
  initFiles: string[];
  bundleBytes: number;
}

/**
 * Bundles every cataloged handler that exists (and `extra` handlers) with `bundles`, and lists
 * the bundles of the cataloged ones `only` picks, with the cataloged modules that do not exist.
 */
function bundledHandlers(
  bundles: HandlerBundles,
  owner: string,
  options: { only?: readonly string[]; extra?: readonly { handler: string; kind: HandlerKind }[] } = {},
): { missing: string[]; files: BundledHandler[] } {
  const cataloged = catalogHandlers().filter(
    (h) => !options.only || options.only.some((part) => h.handler.includes(part)),
  );
  const missing = cataloged.filter((h) => !existsSync(join(repoRoot, h.handler))).map((h) => h.handler);
  const handlers = [...(options.extra ?? []), ...cataloged.filter((h) => !missing.includes(h.handler))];
  // Every existing cataloged handler is bundled, even when `only` narrows what is probed: a
  // split handler's chunks depend on which entries share its modules, so only the whole
  // catalog gives the layout CDK deploys.
  const deployable = catalogHandlers()
    .map((h) => h.handler)
    .filter((h) => existsSync(join(repoRoot, h)));
  bundles.prepare([...(options.extra ?? []).map((h) => h.handler), ...deployable], owner);
  // A handler's directory holds `index.mjs` and the chunks it loads. Its size and its SDK twin
  // are taken from what init reads: the entry and the chunks it imports statically. (A chunk
  // loaded on demand, such as one platform's driver and the SDK clients only it uses, is not
  // part of a cold start; for a single-file bundle this is the whole file, as before.)
  const files = handlers.map((h) => {
    const layout = bundles.layout(h.handler, owner);
    const initFiles = layout.initFiles.map((f) => join(layout.dir, f));
    return {
      ...h,
      file: join(layout.dir, 'index.mjs'),
      initFiles,
      bundleBytes: initFiles.reduce((n, f) => n + statSync(f).size, 0),
    };
  });
  return { missing, files };
}

/**
 * Imports `file` once in a fresh process: undefined when it loads and exports a handler, else the
 * first line of its error (a module left out of the bundle, a crash at module scope).
 */
async function importError(file: string, env: NodeJS.ProcessEnv): Promise<string | undefined> {
  try {
    await probe(file, env);
    return undefined;
  } catch (error) {
    const { stderr, message } = error as Error & { stderr?: string };
    const detail = (stderr ?? message).split('\n').find((l) => /Error/.test(l)) ?? message;
    return detail.trim().slice(0, 300);
  }
}

export interface BundleCheck {
  rows: { handler: string; kind: HandlerKind; bundleBytes: number; importError?: string }[];
  /** Cataloged handler modules that do not exist. */
  missing: string[];
}

/**
 * Figure 5's bundles without its timings, for the test suite: every cataloged handler bundled as
 * CDK deploys it, its init size, and whether it imports in a fresh process of its own. Each
 * import is a process of its own as in figure 5, `concurrency` of them at a time (no time is
 * measured, so they need not run alone).
 */
export async function checkBundles(options: {
  env: NodeJS.ProcessEnv;
  bundles: HandlerBundles;
  concurrency: number;
}): Promise<BundleCheck> {
  const { missing, files } = bundledHandlers(options.bundles, 'test');
  const rows: BundleCheck['rows'] = [];
  const queue = [...files];
  await Promise.all(
    Array.from({ length: options.concurrency }, async () => {
      for (let f = queue.shift(); f !== undefined; f = queue.shift()) {
        const error = await importError(f.file, options.env);
        rows.push({
          handler: f.handler,
          kind: f.kind,
          bundleBytes: f.bundleBytes,
          ...(error !== undefined ? { importError: error } : {}),
        });
      }
    }),
  );
  return { rows, missing };
}

/**
 * The functions held to the SDK-twin target (issue 37: every API handler, queue and stream
 * consumer and workflow task); the authorizer, schedules and internal functions are listed and
 * reported beside them.
 */
export const SDK_TWIN_TARGET_KINDS: readonly HandlerKind[] = ['api', 'consumer', 'workflow'];

export async function coldStart(options: {
  runs: number;
  /**
   * Whole measurements one after another (each `runs` interleaved rounds); a ratio is the median
   * of the repeats' ratios, since one run's noise is about ±0.1 (default 1).
   */
  repeats?: number;
  env: NodeJS.ProcessEnv;
  /** Only handlers whose module path contains one of these strings (default: all). */
  only?: readonly string[];
  /**
   * The bundles to measure, in a directory inside the repository (the SDK twins are written
   * next to them). Default: fresh ones in the bench's cache directory.
   */
  bundles?: HandlerBundles;
}): Promise<ColdStartResult> {
  // Inside the repository so the runtime-provided `@aws-sdk/*` resolve from node_modules, as
  // they resolve from the Lambda runtime's own copy in AWS.
  const bundles = options.bundles ?? new HandlerBundles({ outDir: freshBenchDir() });
  const outDir = bundles.outDir;
  const { missing, files } = bundledHandlers(bundles, 'bench', {
    ...(options.only ? { only: options.only } : {}),
    extra: [{ handler: EMPTY_HANDLER, kind: 'baseline' }],
  });
  const withSdk = files.map((f) => {
    const sdkPackages = sdkPackagesOf(f.initFiles);
    return { ...f, sdkPackages, twin: writeSdkTwin(outDir, sdkPackages) };
  });
  const twins = [...new Set(withSdk.slice(1).map((f) => f.twin))];
  const probed = [
    ...files.map((f) => ({ key: f.handler, file: f.file })),
    ...twins.map((t) => ({ key: t, file: t })),
  ];
  // Warm the OS file cache once so the first measured run is not an outlier for one bundle only.
  // A bundle that cannot even be imported (a module left out of it, a crash at module scope) is
  // reported with the first line of its error instead of a time.
  const broken = new Map<string, string>();
  for (const f of probed) {
    const error = await importError(f.file, options.env);
    if (error !== undefined) broken.set(f.key, error);
  }
  const repeats = Math.max(1, options.repeats ?? 1);
  const runs: Map<string, { importMs: number[]; initMs: number[] }>[] = [];
  for (let repeat = 0; repeat < repeats; repeat++) {
    const samples = new Map<string, { importMs: number[]; initMs: number[] }>(
      probed.map((f) => [f.key, { importMs: [], initMs: [] }]),
    );
    for (let round = 0; round < options.runs; round++) {
      for (const f of probed) {
        if (broken.has(f.key)) continue;
        const sample = await probe(f.file, options.env);
        const s = samples.get(f.key);
        s?.importMs.push(sample.importMs);
        s?.initMs.push(sample.initMs);
      }
    }
    runs.push(samples);
  }
  const statsIn = (samples: Map<string, { importMs: number[]; initMs: number[] }>, handler: string) => {
    const s = samples.get(handler) ?? { importMs: [], initMs: [] };
    return { importMs: median(s.importMs), initMs: median(s.initMs) };
  };
  // Times are medians over every round of every repeat; the twin ratio is the median of the
  // repeats' own ratios (each a ratio of that repeat's medians).
  const all = new Map<string, { importMs: number[]; initMs: number[] }>(
    probed.map((f) => [
      f.key,
      {
        importMs: runs.flatMap((r) => r.get(f.key)?.importMs ?? []),
        initMs: runs.flatMap((r) => r.get(f.key)?.initMs ?? []),
      },
    ]),
  );
  const stats = (handler: string) => statsIn(all, handler);
  const base = { bundleBytes: files[0]?.bundleBytes ?? 0, ...stats(EMPTY_HANDLER) };
  const rows: ColdStartRow[] = withSdk.slice(1).map((f) => {
    const s = stats(f.handler);
    const twin = stats(f.twin);
    const ratioRuns = runs.map((r) => round(statsIn(r, f.handler).initMs / statsIn(r, f.twin).initMs));
    return {
      handler: f.handler,
      kind: f.kind,
      bundleBytes: f.bundleBytes,
      importMs: round(s.importMs),
      initMs: round(s.initMs),
      importRatio: round(s.importMs / base.importMs),
      initRatio: round(s.initMs / base.initMs),
      sdkPackages: f.sdkPackages,
      sdkTwinInitMs: round(twin.initMs),
      sdkTwinRatio: round(median(ratioRuns)),
      sdkTwinRatioRuns: ratioRuns,
      ...(broken.has(f.handler) ? { importError: broken.get(f.handler) } : {}),
    };
  });
  const api = rows.filter((r) => r.kind === 'api');
  const maxApiBundleBytes = Math.max(0, ...api.map((r) => r.bundleBytes));
  const maxInitRatio = Math.max(0, ...rows.filter((r) => !r.importError).map((r) => r.initRatio));
  const importable = rows.every((r) => !r.importError);
  const twinRows = rows.filter((r) => SDK_TWIN_TARGET_KINDS.includes(r.kind) && !r.importError);
  const maxSdkTwinRatio = Math.max(0, ...twinRows.map((r) => r.sdkTwinRatio));
  return {
    runs: options.runs,
    repeats,
    node: process.version,
    baseline: { bundleBytes: base.bundleBytes, importMs: round(base.importMs), initMs: round(base.initMs) },
    rows,
    missing,
    maxApiBundleBytes,
    maxInitRatio,
    maxSdkTwinRatio,
    targets: {
      sdkTwinRatioWithinLimit:
        importable && twins.every((t) => !broken.has(t)) && maxSdkTwinRatio <= SDK_TWIN_RATIO_LIMIT,
      apiBundlesWithinLimit: missing.length === 0 && maxApiBundleBytes <= API_BUNDLE_LIMIT_BYTES,
      initRatioWithinLimit: importable && maxInitRatio <= INIT_RATIO_LIMIT,
    },
  };
}

/** Environment for the cold-start probes: every variable a handler may read, pointing nowhere. */
export function coldStartEnv(): NodeJS.ProcessEnv {
  const nowhere = 'http://127.0.0.1:9';
  const env = clientEnvironment({
    dynamodb: nowhere,
    sqs: nowhere,
    stepfunctions: nowhere,
    lambda: nowhere,
    region: 'us-east-1',
    tables: Object.fromEntries(tables.map((t) => [t.name, `bench-${t.name}`])),
    queues: Object.fromEntries(
      queues.map((q) => [q.name, { url: `${nowhere}/q/${q.name}`, dlqUrl: `${nowhere}/q/${q.name}-dlq` }]),
    ),
    stateMachines: Object.fromEntries(
      workflows.map((w) => [w.name, `arn:aws:states:us-east-1:000000000000:stateMachine:${w.name}`]),
    ),
    functions: Object.fromEntries(internalFunctions.map((f) => [f.name, `bench-${f.name}`])),
    deliveryPrincipalArn: localDeliveryPrincipalArn('local'),
  });
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    ...env,
    ...stageEnvironment('local', loadStage('local')),
    POWERTOOLS_SERVICE_NAME: 'causeway',
    POWERTOOLS_METRICS_DISABLED: 'true',
    NODE_ENV: 'production',
  };
}
