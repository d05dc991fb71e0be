/**
 * Lambda code builds its schemas with zod/mini (ADR 0017): classic zod's module and method-laden
 * schemas cost about 9 ms of CPU at every function's init, a third of a bare Node start. One
 * classic import anywhere in a bundle brings all of it back, so none is allowed in the code that
 * bundles for Lambda. Build-time code (infra/, the OpenAPI renderer through zod-openapi) and
 * tests may use either: both build the same core schemas.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '..', '..', '..');

function sourceFiles(dir: string): string[] {
  return readdirSync(join(root, dir), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && /\.tsx?$/.test(e.name))
    .map((e) => relative(root, join(e.parentPath, e.name)));
}

describe('schema library', () => {
  it('no file in shared/ or functions/ imports classic zod', () => {
    const classic =
      /from\s+['"]zod(?:\/v4(?:\/classic)?)?['"]|import\(\s*['"]zod(?:\/v4(?:\/classic)?)?['"]\s*\)/;
    const offending = ['shared', 'functions']
      .flatMap(sourceFiles)
      .filter((file) => classic.test(readFileSync(join(root, file), 'utf8')));
    expect(offending).toEqual([]);
  });

  it('the logger is ours: no function bundles Powertools Logger', () => {
    const offending = ['shared', 'functions']
      .flatMap(sourceFiles)
      .filter((file) => /@aws-lambda-powertools\/logger/.test(readFileSync(join(root, file), 'utf8')));
    expect(offending).toEqual([]);
  });
});
