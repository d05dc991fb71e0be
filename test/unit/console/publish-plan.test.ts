import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { uploadPlan } from '../../../infra/console-publish';
import { tempDir } from '../../support/temp';

describe('publishing the console build', () => {
  it('puts every file under console/, hashed assets cached for a year, the entry point revalidated and last', () => {
    const dist = tempDir('causeway-console-dist-');
    mkdirSync(join(dist, 'assets'));
    writeFileSync(join(dist, 'index.html'), '<!doctype html>');
    writeFileSync(join(dist, 'assets', 'index-abc.js'), '');
    writeFileSync(join(dist, 'assets', 'index-def.css'), '');
    const plan = uploadPlan(dist);
    expect(plan.map((u) => u.key)).toEqual(
      expect.arrayContaining(['console/assets/index-abc.js', 'console/assets/index-def.css']),
    );
    expect(plan.at(-1)).toMatchObject({
      key: 'console/index.html',
      contentType: 'text/html; charset=utf-8',
      cacheControl: 'no-cache',
    });
    expect(plan.find((u) => u.key.endsWith('.js'))).toMatchObject({
      contentType: 'text/javascript; charset=utf-8',
      cacheControl: 'public, max-age=31536000, immutable',
    });
  });
});
