/**
 * Functions and shared code read their environment only through shared/config/env.ts. That is
 * what lets the local cloud scope each invocation's resource variables to its catalog grants
 * (docs/infrastructure.md, "The local cloud grants what AWS grants"): a direct `process.env`
 * read would see every variable of the one local process and hide a missing grant.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '..', '..', '..');
const ENV_MODULE = 'shared/config/env.ts';

function sourceFiles(dir: string): string[] {
  return readdirSync(join(root, dir), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && /\.tsx?$/.test(e.name))
    .map((e) => relative(root, join(e.parentPath, e.name)));
}

describe('environment access', () => {
  it('the environment module is where functions read variables', () => {
    expect(readFileSync(join(root, ENV_MODULE), 'utf8')).toMatch(/process\.env/);
  });

  it('no other file in shared/ or functions/ reads process.env', () => {
    const offending = ['shared', 'functions']
      .flatMap(sourceFiles)
      .filter((file) => file !== ENV_MODULE)
      .filter((file) =>
        /process\s*\.\s*env|process\s*\[\s*['"]env['"]\s*\]/.test(readFileSync(join(root, file), 'utf8')),
      );
    expect(offending).toEqual([]);
  });
});
