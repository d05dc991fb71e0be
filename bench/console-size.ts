/**
 * 7. The console's weight: the production build (`npm run console:build`, the same Vite config
 * the deploy uses), every JS and CSS file gzipped at level 9 as a CDN would serve it, against
 * the 250 KB budget of issue 15. The baseline is the Preact runtime alone, measured the same way.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { extname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { repoRoot } from '../infra/constructs/bundles';

export const CONSOLE_BUDGET_BYTES = 250 * 1024;

const gz = (bytes: Buffer) => gzipSync(bytes, { level: 9 }).length;

export interface ConsoleSizeResult {
  files: { file: string; bytes: number; gzipBytes: number }[];
  gzipBytes: number;
  preactGzipBytes: number;
  withinBudget: boolean;
}

export function consoleSize(): ConsoleSizeResult {
  const build = spawnSync('npm', ['run', '--silent', 'console:build'], { cwd: repoRoot, stdio: 'inherit' });
  if (build.status !== 0) throw new Error('npm run console:build failed');
  const dist = join(repoRoot, 'console', 'dist');
  const files = readdirSync(dist, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && ['.js', '.css'].includes(extname(e.name)))
    .map((e) => {
      const bytes = readFileSync(join(e.parentPath, e.name));
      return { file: e.name, bytes: bytes.length, gzipBytes: gz(bytes) };
    });
  const gzipBytes = files.reduce((n, f) => n + f.gzipBytes, 0);
  const preact = createRequire(join(repoRoot, 'package.json')).resolve('preact');
  return {
    files,
    gzipBytes,
    preactGzipBytes: gz(readFileSync(preact)),
    withinBudget: gzipBytes <= CONSOLE_BUDGET_BYTES,
  };
}
