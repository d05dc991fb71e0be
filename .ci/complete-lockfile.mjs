// Completes package-lock.json for `npm ci` on registries that do not serve every platform's
// optional binary package (the registry mirror this project is built with lacks, for example,
// Biome's Android/macOS/Windows/musl builds). npm install skips such optional packages and
// leaves them out of the lock file; npm ci then refuses the lock as out of sync. This adds an
// entry for each missing optional dependency with the platform (os/cpu/libc) its name declares,
// so npm ci skips it on every other platform exactly as it would with a complete lock.
// Run `npm run lockfile:complete` after `npm install <package>`.
import { readFileSync, writeFileSync } from 'node:fs';

const file = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(file, 'utf8'));
const packages = lock.packages;

const OS = ['android', 'darwin', 'linux', 'win32', 'freebsd', 'openbsd', 'sunos', 'aix', 'openharmony'];
const CPU = ['arm64', 'x64', 'ia32', 'arm', 'ppc64', 's390x', 'riscv64', 'loong64'];

function platformOf(name) {
  const parts = name.split('/').pop().split('-');
  const os = parts.find((p) => OS.includes(p));
  const cpu = parts.find((p) => CPU.includes(p));
  if (!os || !cpu) return undefined;
  const libc = parts.includes('musl') ? ['musl'] : parts.includes('gnu') ? ['glibc'] : undefined;
  return { os: [os], cpu: [cpu], ...(libc ? { libc } : {}) };
}

/** Node's resolution: the package's own node_modules, then each ancestor's, then the root's. */
function resolves(path, dep) {
  let dir = path;
  for (;;) {
    if (packages[dir === '' ? `node_modules/${dep}` : `${dir}/node_modules/${dep}`]) return true;
    if (dir === '') return false;
    const cut = dir.lastIndexOf('/node_modules/');
    dir = cut === -1 ? '' : dir.slice(0, cut);
  }
}

const added = [];
for (const [path, meta] of Object.entries(packages)) {
  for (const [dep, version] of Object.entries(meta.optionalDependencies ?? {})) {
    if (resolves(path, dep)) continue;
    // Only platform binaries are filled in; any other missing optional dependency is left to npm.
    const platform = platformOf(dep);
    if (!platform) continue;
    packages[`node_modules/${dep}`] = {
      version,
      ...platform,
      ...(meta.dev ? { dev: true } : {}),
      optional: true,
    };
    added.push(`${dep}@${version}`);
  }
}

const sorted = Object.fromEntries(
  Object.entries(packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))),
);
lock.packages = sorted;
writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
console.log(
  added.length ? `added ${added.length} platform entries: ${added.join(', ')}` : 'lock file complete',
);
