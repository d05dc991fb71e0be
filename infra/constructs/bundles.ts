/**
 * In-process esbuild bundling for every Lambda handler, shared by all stacks of one app.
 *
 * `NodejsFunction` bundles each function with its own esbuild child process, per stack. With one
 * function per route, consumer, workflow task and internal function, and two stages, that is
 * dozens of cold esbuild runs. This class runs ONE esbuild build for all catalogued handlers
 * (esbuild parses each shared module once and uses every core), writes one directory per
 * handler (`index.mjs` + source map) and hands out the same `lambda.Code` asset for a handler
 * to every stack. The output is a real bundle with exactly the options the wrapper documents:
 * ESM, a `createRequire` banner for CommonJS dependencies, minified, source maps, Node 24
 * target, `@aws-sdk/*` left to the runtime.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { buildSync } from 'esbuild';

export const repoRoot = join(import.meta.dirname, '..', '..');

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

/** Makes `require` available to CommonJS dependencies inside an ESM bundle. */
export const ESM_REQUIRE_BANNER =
  "import { createRequire as __causewayCreateRequire } from 'node:module';" +
  'const require = __causewayCreateRequire(import.meta.url);';

/** The esbuild target matching the function runtime (nodejs24.x). */
export const BUNDLE_TARGET = 'node24';

/** Absolute path of a handler module given relative to the repository root; fails if missing. */
export function handlerEntry(handler: string, owner: string): string {
  const entry = join(repoRoot, handler);
  if (!existsSync(entry)) {
    throw new Error(
      `${owner}: handler module ${handler} does not exist. Every catalogue entry must name an existing ` +
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

export class HandlerBundles {
  /** Directory holding one sub-directory per bundled handler. */
  public readonly outDir: string;
  private readonly built = new Map<string, string>();

  constructor(props: HandlerBundlesProps = {}) {
    if (props.outDir) {
      this.outDir = props.outDir;
    } else {
      const dir = mkdtempSync(join(tmpdir(), 'causeway-bundles-'));
      this.outDir = dir;
      process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    }
  }

  /**
   * Bundles every given handler that is not bundled yet, in one esbuild run. Call it with the
   * whole catalogue before building stacks; `code()` bundles stragglers on demand.
   */
  prepare(handlers: readonly string[], owner = 'bundling'): void {
    const pending = [...new Set(handlers)].filter((h) => !this.built.has(h));
    if (pending.length === 0) return;
    const entryPoints: Record<string, string> = {};
    for (const handler of pending) entryPoints[`${bundleId(handler)}/index`] = handlerEntry(handler, owner);
    let result: ReturnType<typeof buildSync>;
    try {
      result = buildSync({
        entryPoints,
        outdir: this.outDir,
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
        banner: { js: ESM_REQUIRE_BANNER },
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
    for (const handler of pending) this.built.set(handler, join(this.outDir, bundleId(handler)));
  }

  /**
   * The deployable code of a handler. A `Code` object binds to one stack, so every call returns
   * a new one over the same bundle directory: CDK fingerprints the directory once per process
   * and every stack ships the identical asset.
   */
  code(handler: string, owner: string): lambda.Code {
    if (!this.built.has(handler)) this.prepare([handler], owner);
    const dir = this.built.get(handler);
    if (!dir) throw new Error(`${owner}: ${handler} was not bundled`);
    return lambda.Code.fromAsset(dir);
  }
}
