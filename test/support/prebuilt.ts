/**
 * The local cloud and the operator CLI as the suite starts them: bundled once by esbuild from
 * the same sources, instead of each of the suite's ~24 clouds and ~35 CLI runs transpiling and
 * resolving its few hundred modules through tsx (~0.7 CPU-second more per cloud start, ~0.6 per
 * CLI run, on a run that is CPU-bound on two cores: issue 35). `npm start` and `npm run cli`
 * still run the sources through tsx, and test/integration/local/npm-start.test.ts starts the
 * cloud that way.
 *
 * One build holds the cloud (`infra/local/main.js`), the CLI (`infra/cli/main.js`) and every
 * cataloged handler (`functions/…/x.js`, which the cloud imports through
 * LOCAL_HANDLER_MODULES, see infra/local/lambda.ts), with shared chunks, so a handler and the
 * cloud share one instance of each module (the scoped environment's AsyncLocalStorage among
 * them) as they do under tsx. Packages stay external and resolve from the repository's
 * node_modules; each source file's `import.meta.url`/`dirname`/`filename` are its own path, so
 * files found beside the sources (the DynamoDB launcher, the console, the served document) are
 * found as they are under tsx. Source maps are linked, and the processes run with
 * `--enable-source-maps`, so a stack in a cloud log names the .ts lines as under tsx.
 *
 * The build lives under node_modules/.cache, named by a hash of every source it could read, and
 * is made once per machine and source state: the first caller builds it into a temporary
 * directory and renames it into place, under a lock file, while parallel callers wait.
 */
import { createHash } from 'node:crypto';
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
} from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build as esbuild, type Plugin } from 'esbuild';
import { catalogHandlers } from '../../shared/catalog/handlers';

const repoRoot = join(import.meta.dirname, '..', '..');
const SOURCE_DIRS = ['infra', 'shared', 'functions'];
const ENTRIES = ['infra/local/main.ts', 'infra/cli/main.ts'];

/** Node options for a prebuilt process: stacks mapped to the .ts sources, as tsx maps them. */
export const PREBUILT_NODE_OPTIONS = ['--enable-source-maps'];

/** Every file a build could read: the source trees and the files that shape their compilation. */
function sourceHash(): string {
  const hash = createHash('sha256');
  const visit = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) =>
      a.name.localeCompare(b.name),
    )) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) visit(path);
      else if (entry.isFile()) hash.update(relative(repoRoot, path)).update('\0').update(readFileSync(path));
    }
  };
  for (const dir of SOURCE_DIRS) visit(join(repoRoot, dir));
  for (const file of ['tsconfig.json', 'package-lock.json']) hash.update(readFileSync(join(repoRoot, file)));
  return hash.digest('hex').slice(0, 16);
}

/** Each repository source keeps its own `import.meta` location in the bundle. */
const ownLocation: Plugin = {
  name: 'own-import-meta-location',
  setup(build) {
    build.onLoad({ filter: /\.ts$/ }, (args) => {
      if (args.path.includes(`${join('node_modules', '')}`)) return undefined;
      const text = readFileSync(args.path, 'utf8')
        .replaceAll('import.meta.dirname', JSON.stringify(dirname(args.path)))
        .replaceAll('import.meta.filename', JSON.stringify(args.path))
        .replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href));
      return { contents: text, loader: 'ts', resolveDir: dirname(args.path) };
    });
  },
};

async function build(outDir: string): Promise<void> {
  const entries = [...ENTRIES, ...new Set(catalogHandlers().map((h) => h.handler))];
  await esbuild({
    absWorkingDir: repoRoot,
    entryPoints: entries.map((entry) => ({ in: entry, out: entry.replace(/\.ts$/, '') })),
    outdir: outDir,
    outExtension: { '.js': '.js' },
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node24',
    packages: 'external',
    sourcemap: 'linked',
    plugins: [ownLocation],
    chunkNames: 'chunks/[name]-[hash]',
    logLevel: 'warning',
  });
}

/** Builds of earlier source states (a day old), and work left by a build that died. */
function removeStale(cache: string, current: string): void {
  for (const name of readdirSync(cache)) {
    const path = join(cache, name);
    if (path === current || path.endsWith('.lock')) continue;
    const age = Date.now() - (statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
    if (age > 86_400_000) rmSync(path, { recursive: true, force: true });
  }
}

let built: Promise<string> | undefined;

/** The build's directory, made now if this source state has none yet. */
export function prebuiltDir(): Promise<string> {
  built ??= buildOnce();
  return built;
}

async function buildOnce(): Promise<string> {
  const cache = join(repoRoot, 'node_modules', '.cache', 'causeway-prebuilt');
  mkdirSync(cache, { recursive: true });
  const dir = join(cache, sourceHash());
  const lock = `${dir}.lock`;
  const deadline = Date.now() + 120_000;
  while (!existsSync(dir)) {
    let fd: number | undefined;
    try {
      fd = openSync(lock, 'wx');
    } catch {
      // Another process is building it: wait, and take over a lock left by one that died.
      const lockedAt = statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now();
      if (Date.now() - lockedAt > 60_000) rmSync(lock, { force: true });
      if (Date.now() > deadline) throw new Error(`the prebuilt cloud at ${dir} was not built within 120 s`);
      await new Promise((resolve) => setTimeout(resolve, 100));
      continue;
    }
    try {
      if (!existsSync(dir)) {
        const work = `${dir}.build-${process.pid}`;
        rmSync(work, { recursive: true, force: true });
        await build(work);
        renameSync(work, dir);
        removeStale(cache, dir);
      }
    } finally {
      closeSync(fd);
      rmSync(lock, { force: true });
    }
  }
  return dir;
}

/** The prebuilt entry for a source entry (`infra/local/main.ts` → `<build>/infra/local/main.js`). */
export async function prebuiltEntry(source: (typeof ENTRIES)[number]): Promise<string> {
  return join(await prebuiltDir(), source.replace(/\.ts$/, '.js'));
}
