/**
 * The service's own AWS SDK clients (DynamoDB, SQS, Step Functions, Lambda, KMS) are imported
 * only by repositories and adapters. Biome's `noRestrictedImports` override refuses static
 * imports elsewhere; this test also covers dynamic `import()` and `typeof import()`, and reads
 * the allowed files from the same biome.json override, so the list has one source.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot as root, sourceFiles } from '../../support/source-files';

interface Override {
  includes: string[];
  linter?: {
    rules?: { style?: { noRestrictedImports?: { options?: { patterns?: { group: string[] }[] } } } };
  };
}

const overrides = (JSON.parse(readFileSync(join(root, 'biome.json'), 'utf8')) as { overrides: Override[] })
  .overrides;
const patternsOf = (o: Override) => o.linter?.rules?.style?.noRestrictedImports?.options?.patterns ?? [];
const restricted = patternsOf(overrides.find((o) => o.includes.includes('shared/**')) as Override)
  .flatMap((p) => p.group)
  .filter((g) => g.startsWith('@aws-sdk/'));
const allowed = overrides
  .filter(
    (o) =>
      !o.includes.includes('shared/**') && patternsOf(o).every((p) => !p.group.includes(restricted[0] ?? '')),
  )
  .flatMap((o) => o.includes);

function matches(file: string, glob: string): boolean {
  return glob.endsWith('/**') ? file.startsWith(glob.slice(0, -2)) : file === glob;
}

describe('AWS SDK boundary', () => {
  it('biome.json restricts the service SDK clients and names the files allowed to use them', () => {
    expect(restricted).toEqual(expect.arrayContaining(['@aws-sdk/lib-dynamodb', '@aws-sdk/client-dynamodb']));
    expect(allowed).toContain('shared/store/**');
  });

  it('only repositories and adapters import the service SDK clients', () => {
    const offending = ['shared', 'functions'].flatMap(sourceFiles).filter((file) => {
      if (allowed.some((glob) => matches(file, glob))) return false;
      const text = readFileSync(join(root, file), 'utf8');
      return restricted.some((pkg) => text.includes(`'${pkg}'`));
    });
    expect(offending).toEqual([]);
  });
});
