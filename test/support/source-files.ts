/**
 * The repository's TypeScript sources under a folder, for the architecture tests that read the
 * code itself (test/unit/architecture/).
 */
import { readdirSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';

export const repoRoot = resolve(import.meta.dirname, '..', '..');

/** Every `.ts` and `.tsx` file under `dir` (relative to the repository), repository-relative with `/`. */
export function sourceFiles(dir: string): string[] {
  return readdirSync(join(repoRoot, dir), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && /\.tsx?$/.test(e.name))
    .map((e) => relative(repoRoot, join(e.parentPath, e.name)).split(sep).join('/'));
}
