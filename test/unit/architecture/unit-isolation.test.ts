/**
 * The unit tier shares a worker's modules between files (vitest.config.ts); a file that mocks,
 * spies, stubs or writes `process.env` must run in a module graph of its own, or it leaks into
 * whichever file the worker runs next. This holds the list in test/support/unit-isolation.ts to
 * what the files do.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LEAKS_ACROSS_FILES, UNIT_ISOLATED_FILES } from '../../support/unit-isolation';

const repoRoot = join(import.meta.dirname, '..', '..', '..');
/** This file names the leaking calls as strings (to test the pattern), and calls none of them. */
const SELF = 'test/unit/architecture/unit-isolation.test.ts';

function unitFiles(): string[] {
  return readdirSync(join(repoRoot, 'test', 'unit'), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.test.ts'))
    .map((file) => relative(repoRoot, join(repoRoot, 'test', 'unit', file)))
    .filter((file) => file !== SELF)
    .sort();
}

describe('unit files that share a worker', () => {
  it('every file that mocks, spies, stubs or writes process.env runs isolated', () => {
    const leaking = unitFiles().filter((file) =>
      LEAKS_ACROSS_FILES.test(readFileSync(join(repoRoot, file), 'utf8')),
    );
    expect(leaking.length).toBeGreaterThan(0);
    expect(leaking.filter((file) => !(UNIT_ISOLATED_FILES as readonly string[]).includes(file))).toEqual([]);
  });

  it('the isolated list names existing unit files only', () => {
    const files = unitFiles();
    expect(UNIT_ISOLATED_FILES.filter((file) => !files.includes(file))).toEqual([]);
  });

  it('the pattern catches each way of leaking', () => {
    for (const leak of [
      "vi.mock('../x')",
      'vi.spyOn(process.stdout, "write")',
      "vi.stubEnv('AWS_REGION', 'x')",
      'vi.useFakeTimers()',
      "process.env.X = '1'",
      "process.env[NAME] = 'x'",
      'delete process.env.X',
      'globalThis.fetch = f',
    ])
      expect(LEAKS_ACROSS_FILES.test(leak), leak).toBe(true);
    for (const fine of ['const a = process.env.X;', "if (process.env.X === '1') {}", 'vi.fn()'])
      expect(LEAKS_ACROSS_FILES.test(fine), fine).toBe(false);
  });
});
