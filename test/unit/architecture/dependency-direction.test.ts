/**
 * Dependencies point one way: infra → functions → shared. Biome's `noRestrictedImports` rule
 * (biome.json overrides) refuses static imports against the direction; this test also covers
 * dynamic `import()` and re-exports, by resolving every relative specifier in the runtime folders.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot as root, sourceFiles } from '../../support/source-files';

const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)['"](\.{1,2}\/[^'"]+)['"]/g;

function importsOf(file: string): string[] {
  const text = readFileSync(join(root, file), 'utf8');
  return [...text.matchAll(SPECIFIER)].map((m) =>
    relative(root, resolve(dirname(join(root, file)), m[1] ?? '')),
  );
}

const FORBIDDEN: Record<string, readonly string[]> = {
  shared: ['infra', 'functions'],
  functions: ['infra'],
};

describe('dependency direction', () => {
  for (const [layer, forbidden] of Object.entries(FORBIDDEN)) {
    it(`${layer}/ imports nothing from ${forbidden.join(' or ')}/`, () => {
      const offending = sourceFiles(layer).flatMap((file) =>
        importsOf(file)
          .filter((target) => forbidden.some((f) => target === f || target.startsWith(`${f}/`)))
          .map((target) => `${file} → ${target}`),
      );
      expect(offending).toEqual([]);
    });
  }
});
