/**
 * In-process esbuild bundling for every Lambda handler, shared by all stacks of one app.
 *
 * `NodejsFunction` bundles each function with its own esbuild child process, per stack. With one
 * function per route, consumer, workflow task and internal function, and two stages, that is
 * dozens of cold esbuild runs. This class bundles all cataloged handlers together (esbuild
 * parses each shared module once and uses every core), writes one directory per handler and
 * hands out the same `lambda.Code` asset for a handler to every stack. The output is a real
 * bundle with exactly the options the wrapper documents: ESM, a `createRequire` banner for
 * CommonJS dependencies, minified, source maps, Node 24 target, `@aws-sdk/*` left to the runtime.
 *
 * Two layouts (ADR 0013). A handler that loads most of its code on demand — the integration
 * checks, workflow tasks, connector and scheduled checks, which reach every platform's database
 * driver through dynamic `import()` but use one per call — is split: its directory holds
 * `index.mjs` and the chunks it imports statically and dynamically (`chunks/`, each with its
 * source map), so init reads ~0.22 MB in ~18 files instead of one 7.5 MB file, and the drivers'
 * imports of Node built-ins (`node:http`, …) stay in their chunks. check-integrations' init went
 * from 312 ms to ~121 ms (figure 5, 2026-11-24). Every other handler stays one `index.mjs`:
 * splitting all of them put up to 37 shared chunks under each API handler and consumer, which
 * made them slower to init (fan-out 1.18 → 1.53 of its SDK twin, webhooks/create 1.15 → 1.47,
 * in two full figure-5 runs minutes apart) and 8–55 KB larger (19 API bundles over their 300 KB
 * budget). So `prepare` runs esbuild three times, in memory (`write: false`): with `splitting`
 * over all handlers, only for its metafile — each entry's bytes loaded at init (static imports)
 * and on demand (dynamic imports); a handler whose on-demand bytes exceed its init bytes is
 * split — then with `splitting` over the split handlers only (chunks shared with single-file
 * handlers fragmented their init into 34 files instead of 18: 125.6 against 120.9 ms), then
 * without over the rest. Together the runs take ~4.9 s against 6.6–10.5 s for the one unsplit
 * run they replace (which generated the 7.5 MB driver bundle once per driver handler). A third
 * layout: a handler that loads 96 KB or more on demand but less than at init (the routes that
 * take YAML bodies, whose parser loads with the first YAML body) is split alone, in a run of its
 * own, so its init stays what it imports statically and the on-demand code leaves its init bytes
 * (integrations and script routes 302–318 → 176–206 KB; ~0.4 s of bundling each). The
 * NodejsFunction fallback (`bundles` omitted) is unchanged: one file per function.
 */
import { createHash } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, posix, relative, resolve, sep } from 'node:path';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { buildSync } from 'esbuild';

export const repoRoot = join(import.meta.dirname, '..', '..');

/**
 * A handler that loads at least this much code on demand, though less than it loads at init (the
 * API routes that take YAML bodies: the parser is ~115 KB), keeps that code in chunks too, so its
 * init reads only what every request needs (ADR 0013).
 */
const ON_DEMAND_CHUNK_BYTES = 96 * 1024;

/** Modules the Lambda Node.js runtime provides (AWS SDK v3); never bundled. */
export const RUNTIME_PROVIDED_MODULES = ['@aws-sdk/*'];

/**
 * Native addons cannot be inlined. Packages whose entry is a prebuilt binary stay external,
 * and `.node` files that code requires by relative path are copied next to the bundle
 * (`NATIVE_ADDON_LOADER`). The binaries installed here are for the build machine, not
 * Lambda's arm64; the drivers that use them (the Databricks SQL kernel, lz4-napi) load them
 * inside try/catch and fall back to JavaScript paths. (An `external: ['*.node']` pattern would
 * also catch extensionless imports of ordinary modules such as `./utils/utils.node`, which
 * then fail to load.)
 */
export const NATIVE_ADDONS = nativeAddonPackages();

/**
 * Packages whose `node` export is their CommonJS build while the same code also ships as ES
 * modules: bundling the ES modules lets esbuild drop what a function does not use (`yaml`: 18 KB
 * less in every function that parses YAML bodies, which keeps API bundles under their budget).
 */
export const ESM_BUILDS: Record<string, string> = {
  yaml: join(repoRoot, 'node_modules', 'yaml', 'browser', 'index.js'),
};

/** esbuild loader for `.node` binaries: copy the file and keep the `require` pointing at it. */
export const NATIVE_ADDON_LOADER = { '.node': 'copy' } as const;

function nativeAddonPackages(): string[] {
  const root = join(repoRoot, 'node_modules');
  if (!existsSync(root)) return [];
  const found: string[] = [];
  for (const entry of readdirSync(root)) {
    if (entry.startsWith('.')) continue;
    const names = entry.startsWith('@')
      ? readdirSync(join(root, entry)).map((n) => `${entry}/${n}`)
      : [entry];
    for (const name of names) {
      const manifest = join(root, name, 'package.json');
      if (!existsSync(manifest)) continue;
      try {
        const { main } = JSON.parse(readFileSync(manifest, 'utf8')) as { main?: unknown };
        if (typeof main === 'string' && main.endsWith('.node')) found.push(name);
      } catch {
        // An unreadable manifest is not a native addon we could exclude by name.
      }
    }
  }
  return found;
}

/**
 * Files a module reads beside itself at run time (through `import.meta.dirname` or
 * `import.meta.url`), by the module's path from the repository root. A bundle output that holds
 * the module gets a copy of each next to it, where the same path then points; in the repository
 * (tests, the local cloud) it points at the file beside the source. `GET /openapi.json` reads its
 * document so rather than compiling it as a 157 KB string literal at init (ADR 0021).
 */
export const MODULE_FILES: Readonly<Record<string, readonly string[]>> = {
  'shared/openapi/served-document.ts': ['served-document.json'],
};

/** Makes `require` available to CommonJS dependencies inside an ESM bundle. */
export const ESM_REQUIRE_BANNER =
  "import { createRequire as __causewayCreateRequire } from 'node:module';" +
  'const require = __causewayCreateRequire(import.meta.url);';

/**
 * Gives CommonJS dependencies `__filename` and `__dirname` inside a split bundle's chunks. The
 * single-file bundle evaluates some of the drivers' CommonJS modules only when called; split
 * into chunks, the same modules run when their chunk loads, and two drivers' dependencies
 * (`cloud-warehouse`, `lakehouse`; e.g. the `open` package) read `__dirname` at their top
 * level: without this those chunks fail to load with "__dirname is not defined in ES module
 * scope" (`test/infra/bundles.test.ts` loads every chunk). Only the split run uses it, so
 * single-file bundles stay byte for byte as they were.
 */
const ESM_DIRNAME_BANNER =
  "import { fileURLToPath as __causewayFileURLToPath } from 'node:url';" +
  "import { dirname as __causewayDirname } from 'node:path';" +
  'const __filename = __causewayFileURLToPath(import.meta.url);' +
  'const __dirname = __causewayDirname(__filename);';

/** The esbuild target matching the function runtime (nodejs24.x). */
export const BUNDLE_TARGET = 'node24';

/** Absolute path of a handler module given relative to the repository root; fails if missing. */
export function handlerEntry(handler: string, owner: string): string {
  const entry = join(repoRoot, handler);
  if (!existsSync(entry)) {
    throw new Error(
      `${owner}: handler module ${handler} does not exist. Every catalog entry must name an existing ` +
        'file under functions/ that exports `handler`.',
    );
  }
  return entry;
}

function bundleId(handler: string): string {
  const slug = handler
    .replace(/\.[cm]?[jt]s$/, '')
    .replace(/[^A-Za-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
  const hash = createHash('sha256').update(handler).digest('hex').slice(0, 8);
  return `${slug}-${hash}`;
}

export interface HandlerBundlesProps {
  /**
   * Directory the bundles are written to.
   * @default a fresh temporary directory, removed when the process exits
   */
  readonly outDir?: string;
}

/** What one handler's deployable directory holds (paths relative to `dir`, `/`-separated). */
export interface HandlerLayout {
  /** The directory `lambda.Code.fromAsset` ships: `index.mjs` and the chunks it loads. */
  readonly dir: string;
  /** `index.mjs` and every chunk it imports statically, transitively: what init reads. */
  readonly initFiles: readonly string[];
  /** Every JavaScript file in the directory: `initFiles` and the chunks loaded on demand. */
  readonly codeFiles: readonly string[];
  /** Files its modules read at run time (`MODULE_FILES`), copied beside the output holding them. */
  readonly dataFiles: readonly string[];
}

/** Where esbuild's outputs would go; nothing is written there (`write: false`). */
const STAGING = '.esbuild';
/** Import kinds that load a chunk before the importing module runs. */
const STATIC_IMPORTS = new Set(['import-statement']);

type Metafile = NonNullable<ReturnType<typeof buildSync>['metafile']>;

/** One esbuild run's outputs: contents by absolute path and the import graph between them. */
interface BuildOutput {
  readonly staging: string;
  readonly contents: ReadonlyMap<string, Uint8Array>;
  readonly graph: OutputGraph;
}

export class HandlerBundles {
  /** Directory holding one sub-directory per bundled handler. */
  public readonly outDir: string;
  private readonly built = new Map<string, HandlerLayout>();

  constructor(props: HandlerBundlesProps = {}) {
    if (props.outDir) {
      this.outDir = resolve(props.outDir);
    } else {
      const dir = mkdtempSync(join(tmpdir(), 'causeway-bundles-'));
      this.outDir = dir;
      process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    }
  }

  /**
   * Bundles every given handler that is not bundled yet. Call it with the whole catalog before
   * building stacks; `code()` bundles stragglers on demand. A split run over all of them picks
   * the handlers that load most of their code on demand; those are split among themselves, the
   * others bundled as single files (see the module comment).
   */
  prepare(handlers: readonly string[], owner = 'bundling'): void {
    const pending = [...new Set(handlers)].filter((h) => !this.built.has(h));
    if (pending.length === 0) return;
    const probe = this.build(pending, owner, true);
    const split: string[] = [];
    const lazy: string[] = [];
    const single: string[] = [];
    const bytes = (files: string[]) => files.reduce((n, f) => n + (probe.graph.get(f)?.bytes ?? 0), 0);
    for (const handler of pending) {
      const entry = `${bundleId(handler)}.mjs`;
      const atInit = bytes(reachable(probe.graph, entry, (kind) => STATIC_IMPORTS.has(kind)));
      const onDemand = bytes(reachable(probe.graph, entry, () => true)) - atInit;
      (onDemand > atInit ? split : onDemand >= ON_DEMAND_CHUNK_BYTES ? lazy : single).push(handler);
    }
    // Split among themselves only: chunks shared with handlers that stay single files would
    // fragment the split handlers' init into more, smaller chunks (34 instead of 18 files for
    // check-integrations: 125.6 against 120.9 ms init, 21 rounds side by side).
    const chunked =
      split.length > 0 && split.length < pending.length ? this.build(split, owner, true) : probe;
    for (const handler of split) this.built.set(handler, this.write(handler, chunked, owner));
    // Each alone: its init stays one file (everything it imports statically), and only what it
    // loads on demand goes to chunks; split together they would share dozens of small chunks.
    for (const handler of lazy)
      this.built.set(handler, this.write(handler, this.build([handler], owner, true), owner));
    if (single.length === 0) return;
    const whole = this.build(single, owner, false);
    for (const handler of single) this.built.set(handler, this.write(handler, whole, owner));
  }

  /** The files of a bundled handler's directory (bundles it first if needed). */
  layout(handler: string, owner: string): HandlerLayout {
    if (!this.built.has(handler)) this.prepare([handler], owner);
    const layout = this.built.get(handler);
    if (!layout) throw new Error(`${owner}: ${handler} was not bundled`);
    return layout;
  }

  /**
   * The deployable code of a handler. A `Code` object binds to one stack, so every call returns
   * a new one over the same bundle directory: CDK fingerprints the directory once per process
   * and every stack ships the identical asset.
   */
  code(handler: string, owner: string): lambda.Code {
    return lambda.Code.fromAsset(this.layout(handler, owner).dir);
  }

  private write(handler: string, output: BuildOutput, owner: string): HandlerLayout {
    const id = bundleId(handler);
    return writeHandlerDir(join(this.outDir, id), `${id}.mjs`, output, owner);
  }

  /** One esbuild run over `handlers`, kept in memory: entries `<id>.mjs`, chunks in `chunks/`. */
  private build(handlers: readonly string[], owner: string, splitting: boolean): BuildOutput {
    const staging = join(this.outDir, STAGING);
    const entryPoints: Record<string, string> = {};
    for (const handler of handlers) entryPoints[bundleId(handler)] = handlerEntry(handler, owner);
    let result: ReturnType<typeof buildSync>;
    try {
      result = buildSync({
        entryPoints,
        outdir: staging,
        write: false,
        metafile: true,
        splitting,
        chunkNames: 'chunks/[name]-[hash]',
        assetNames: 'chunks/[name]-[hash]',
        absWorkingDir: repoRoot,
        bundle: true,
        platform: 'node',
        target: BUNDLE_TARGET,
        format: 'esm',
        outExtension: { '.js': '.mjs' },
        mainFields: ['module', 'main'],
        alias: ESM_BUILDS,
        minify: true,
        sourcemap: true,
        sourcesContent: false,
        legalComments: 'none',
        external: [...RUNTIME_PROVIDED_MODULES, ...NATIVE_ADDONS],
        loader: NATIVE_ADDON_LOADER,
        banner: { js: splitting ? ESM_REQUIRE_BANNER + ESM_DIRNAME_BANNER : ESM_REQUIRE_BANNER },
        tsconfig: join(repoRoot, 'tsconfig.json'),
        logLevel: 'silent',
      });
    } catch (error) {
      throw new Error(
        `${owner}: bundling the Lambda handlers with esbuild failed: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    if (result.errors.length > 0) {
      throw new Error(`esbuild failed: ${result.errors.map((e) => e.text).join('; ')}`);
    }
    return {
      staging,
      contents: new Map(result.outputFiles?.map((f) => [f.path, f.contents])),
      graph: outputGraph(result.metafile ?? { inputs: {}, outputs: {} }, staging),
    };
  }
}

/** Each output (relative to the staging directory): its size and the outputs it imports. */
type OutputGraph = Map<
  string,
  { bytes: number; imports: { kind: string; path: string }[]; inputs: string[] }
>;

function outputGraph(metafile: Metafile, staging: string): OutputGraph {
  const rel = (path: string) => relative(staging, resolve(repoRoot, path)).split(sep).join('/');
  const graph: OutputGraph = new Map();
  for (const [path, output] of Object.entries(metafile.outputs)) {
    graph.set(rel(path), {
      bytes: output.bytes,
      imports: output.imports.filter((i) => !i.external).map((i) => ({ kind: i.kind, path: rel(i.path) })),
      inputs: Object.keys(output.inputs),
    });
  }
  return graph;
}

/** `start` and every output it reaches through imports whose kind `follow` accepts. */
function reachable(graph: OutputGraph, start: string, follow: (kind: string) => boolean): string[] {
  const seen = new Set([start]);
  const queue = [start];
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    for (const imported of graph.get(next)?.imports ?? []) {
      if (!follow(imported.kind) || seen.has(imported.path)) continue;
      seen.add(imported.path);
      queue.push(imported.path);
    }
  }
  return [...seen];
}

/**
 * Writes one handler's deployable directory: its entry as `index.mjs` (and `index.mjs.map`),
 * and every output the entry reaches (chunks imported statically or dynamically, copied `.node`
 * files) at the same path relative to it as esbuild gave them, with their source maps, and the
 * files their modules read beside themselves (`MODULE_FILES`). The
 * staging directory and the handler directory are both children of `outDir`, so the source
 * maps' relative `sources` stay right. A previous bundle in the directory is removed first: the
 * asset holds exactly what the handler loads.
 */
function writeHandlerDir(dir: string, entry: string, output: BuildOutput, owner: string): HandlerLayout {
  const { graph, contents, staging } = output;
  const files = reachable(graph, entry, () => true);
  if (files.slice(1).some((f) => graph.get(f)?.imports.some((i) => i.path === entry))) {
    throw new Error(`${owner}: a chunk imports the entry ${entry}, which is written as index.mjs`);
  }
  const produced = (file: string) => contents.get(join(staging, ...file.split('/')));
  rmSync(dir, { recursive: true, force: true });
  const write = (from: string, to: string, rewrite?: (text: string) => string) => {
    const data = produced(from);
    if (!data) throw new Error(`${owner}: esbuild reported ${from} but produced no such file`);
    const target = join(dir, ...to.split('/'));
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, rewrite ? rewrite(Buffer.from(data).toString('utf8')) : data);
  };
  const asIndex = (text: string) =>
    text.replace(`//# sourceMappingURL=${entry}.map`, '//# sourceMappingURL=index.mjs.map');
  const dataFiles: string[] = [];
  for (const file of files) {
    const to = file === entry ? 'index.mjs' : file;
    write(file, to, file === entry ? asIndex : undefined);
    if (file.endsWith('.mjs') && produced(`${file}.map`)) write(`${file}.map`, `${to}.map`);
    for (const input of graph.get(file)?.inputs ?? []) {
      for (const name of MODULE_FILES[input] ?? []) {
        const data = posix.join(posix.dirname(to), name);
        copyFileSync(join(repoRoot, posix.dirname(input), name), join(dir, ...data.split('/')));
        dataFiles.push(data);
      }
    }
  }
  const named = (f: string) => (f === entry ? 'index.mjs' : f);
  return {
    dir,
    initFiles: reachable(graph, entry, (kind) => STATIC_IMPORTS.has(kind)).map(named),
    codeFiles: files.filter((f) => f.endsWith('.mjs')).map(named),
    dataFiles,
  };
}
