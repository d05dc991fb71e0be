/**
 * Temporary directories for tests, removed after each test file (see `cleanup.ts`, a vitest
 * setup file). CDK assemblies and handler bundles run to ~100 MB, so leaving them in /tmp
 * would fill a machine's disk over a few runs.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const created: string[] = [];

export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  created.push(dir);
  return dir;
}

export function removeTempDirs(): void {
  for (const dir of created.splice(0)) rmSync(dir, { recursive: true, force: true });
}
