/**
 * Functions and shared code read their environment only through shared/config/env.ts. That is
 * what lets the local cloud scope each invocation's resource variables to its catalog grants
 * (docs/infrastructure.md, "The local cloud grants what AWS grants"): a direct `process.env`
 * read would see every variable of the one local process and hide a missing grant.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot as root, sourceFiles } from '../../support/source-files';

const ENV_MODULE = 'shared/config/env.ts';

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
