/**
 * Every validation test a response can carry is documented: both lists (the per-test table in
 * docs/platforms.md and the list in docs/integrations.md) name every name the connectors use.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TEST } from '../../../shared/platforms/validation-tests';

const docs = (file: string) =>
  readFileSync(join(import.meta.dirname, '..', '..', '..', 'docs', file), 'utf8');

describe('validation test names in the docs', () => {
  it.each(['platforms.md', 'integrations.md'])('docs/%s names every validation test', (file) => {
    const text = docs(file);
    const missing = Object.values(TEST).filter((name) => !text.includes(`\`${name}\``));
    expect(missing).toEqual([]);
  });
});
