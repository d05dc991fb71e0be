/**
 * Generic code is generic: everything a platform type means lives in its folder
 * (`shared/platforms/<type>/`) and the registry (`shared/platforms/index.ts`) lists the folders.
 * Outside them, no production file names a type as a value (a comparison, a case, a list) or
 * imports a type folder's files; and the capability folders of `shared/` import each other in
 * one direction only (no cycle).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { INTEGRATION_TYPES } from '../../../shared/platforms';
import { folderOf } from '../../../shared/platforms/module';
import { repoRoot as root, sourceFiles } from '../../support/source-files';

const PRODUCTION = ['shared', 'functions', 'infra', 'console/src'];
/** Written by generators (`npm run openapi -- --write`), checked for freshness elsewhere. */
const GENERATED = new Set(['shared/openapi/api-types.ts']);
const TYPE_FOLDERS = INTEGRATION_TYPES.map((t) => `shared/platforms/${folderOf(t)}/`);
const REGISTRY = 'shared/platforms/index.ts';

const generic = PRODUCTION.flatMap(sourceFiles).filter(
  (f) => !GENERATED.has(f) && f !== REGISTRY && !TYPE_FOLDERS.some((folder) => f.startsWith(folder)),
);

/** The file's code without comments (a type named in prose is documentation, not a branch). */
function code(file: string): string {
  return readFileSync(join(root, file), 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
}

const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)['"](\.{1,2}\/[^'"]+)['"]/g;

function importsOf(file: string): string[] {
  return [...code(file).matchAll(SPECIFIER)].map((m) =>
    relative(root, resolve(dirname(join(root, file)), m[1] ?? ''))
      .split(sep)
      .join('/'),
  );
}

describe('platform types stay in their folders', () => {
  it('the scan sees the type folders and the generic code', () => {
    expect(INTEGRATION_TYPES.length).toBeGreaterThanOrEqual(7);
    expect(generic).toContain('shared/platforms/sql/connector/index.ts');
    expect(generic).toContain('shared/platforms/scripts.ts');
    expect(generic).toContain('shared/platforms/sandbox/sql-driver.ts');
    expect(generic).toContain('console/src/pages/IntegrationDetail.tsx');
  });

  it('no production file outside them names a type as a value', () => {
    const literal = new RegExp(`(['"\`])(${INTEGRATION_TYPES.join('|')})\\1`, 'g');
    const offending = generic.flatMap((file) =>
      [...code(file).matchAll(literal)].map((m) => `${file}: ${m[0]}`),
    );
    expect(offending).toEqual([]);
  });

  it('no production file outside them imports a type folder', () => {
    const offending = generic.flatMap((file) =>
      importsOf(file)
        .filter((target) => TYPE_FOLDERS.some((folder) => `${target}/`.startsWith(folder)))
        .map((target) => `${file} → ${target}`),
    );
    expect(offending).toEqual([]);
  });
});

describe('SQL dialects stay in their modules', () => {
  const DIALECT_MODULES = 'shared/platforms/sql/dialects/';
  const names = readdirSync(join(root, DIALECT_MODULES))
    .filter((f) => f.endsWith('.ts') && f !== 'index.ts')
    .map((f) => f.replace(/\.ts$/, ''));

  it('every dialect a type names has a module', () => {
    expect(names.sort()).toEqual(['cloud', 'cluster', 'lakehouse', 'tsql']);
  });

  it('no production file outside them branches on a dialect name', () => {
    const branch = new RegExp(`(?:[!=]==\\s*|case\\s+)(['"\`])(${names.join('|')})\\1`, 'g');
    const offending = PRODUCTION.flatMap(sourceFiles)
      .filter((f) => !f.startsWith(DIALECT_MODULES))
      .flatMap((file) => [...code(file).matchAll(branch)].map((m) => `${file}: ${m[0]}`));
    expect(offending).toEqual([]);
  });
});

describe('capability folders of shared/', () => {
  it('import each other without a cycle', () => {
    const folderOfFile = (file: string) =>
      file
        .split('/')
        .slice(0, 2)
        .join('/')
        .replace(/\.tsx?$/, '');
    const edges = new Map<string, Set<string>>();
    for (const file of sourceFiles('shared')) {
      const from = folderOfFile(file);
      for (const target of importsOf(file)) {
        if (!target.startsWith('shared/')) continue;
        const to = folderOfFile(target);
        if (to !== from) edges.set(from, (edges.get(from) ?? new Set()).add(to));
      }
    }
    const cycles: string[] = [];
    const visit = (node: string, path: string[]) => {
      for (const next of edges.get(node) ?? []) {
        if (path.includes(next)) cycles.push([...path.slice(path.indexOf(next)), next].join(' → '));
        else visit(next, [...path, next]);
      }
    };
    for (const node of edges.keys()) visit(node, [node]);
    expect(cycles).toEqual([]);
  });
});
