import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { decodeBody, JSON_BODY, MAX_BODY_DEPTH } from '../../../shared/edge/body';
import { httpStatusOf } from '../../../shared/edge/errors';
import { MAX_YAML_BYTES, parseYamlBody } from '../../../shared/edge/yaml';
import { JSON_OR_YAML, YAML_BODY } from '../../../shared/edge/yaml-body';
import { describeIssues } from '../../../shared/validation';

async function statusOf(fn: () => unknown): Promise<number | undefined> {
  try {
    await fn();
    return undefined;
  } catch (error) {
    return httpStatusOf(error) ?? -1;
  }
}

describe('request bodies', () => {
  it('decodes JSON and treats a missing Content-Type as JSON', async () => {
    expect(await decodeBody('{"a":1}', false, undefined, [JSON_BODY])).toEqual({ a: 1 });
    expect(await decodeBody('{"a":1}', false, 'application/json; charset=utf-8', [JSON_BODY])).toEqual({
      a: 1,
    });
    expect(
      await decodeBody(Buffer.from('{"a":2}').toString('base64'), true, 'application/json', [JSON_BODY]),
    ).toEqual({ a: 2 });
  });

  it('returns undefined for an empty body', async () => {
    expect(await decodeBody(undefined, false, 'application/json', [JSON_BODY])).toBeUndefined();
    expect(await decodeBody('  ', false, 'application/json', [JSON_BODY])).toBeUndefined();
  });

  it('answers 400 for malformed JSON without echoing it', async () => {
    try {
      await decodeBody('{"password":"hunter2"', false, 'application/json', [JSON_BODY]);
      expect.unreachable();
    } catch (error) {
      expect(httpStatusOf(error)).toBe(400);
      expect((error as Error).message).not.toContain('hunter2');
    }
  });

  it('answers 415 for media types the route does not accept', async () => {
    expect(await statusOf(() => decodeBody('a: 1', false, 'application/yaml', [JSON_BODY]))).toBe(415);
    expect(await statusOf(() => decodeBody('x', false, 'text/plain', JSON_OR_YAML))).toBe(415);
  });

  it('decodes YAML where the route accepts it', async () => {
    expect(
      await decodeBody('type: ClusterWarehouse\nport: 5439\n', false, 'application/yaml', JSON_OR_YAML),
    ).toEqual({
      type: 'ClusterWarehouse',
      port: 5439,
    });
    expect(await decodeBody('a: 1', false, 'text/yaml', JSON_OR_YAML)).toEqual({ a: 1 });
  });

  it('refuses YAML aliases (alias bombs)', async () => {
    const bomb = 'a: &a [x, x]\nb: &b [*a, *a]\nc: [*b, *b]\n';
    expect(await statusOf(() => parseYamlBody(bomb))).toBe(400);
  });

  it('refuses custom and YAML 1.1 tags such as !!binary', async () => {
    expect(await statusOf(() => parseYamlBody('a: !!binary aGVsbG8='))).toBe(400);
    expect(await statusOf(() => parseYamlBody('a: !custom x'))).toBe(400);
  });

  it('refuses duplicate keys', async () => {
    expect(await statusOf(() => parseYamlBody('a: 1\na: 2\n'))).toBe(400);
  });

  it('does not apply merge keys', async () => {
    const value = parseYamlBody('base: {x: 1}\nother:\n  "<<": {y: 2}\n') as Record<
      string,
      Record<string, unknown>
    >;
    expect(value.other).toEqual({ '<<': { y: 2 } });
  });

  it('does not echo YAML source in errors', async () => {
    try {
      parseYamlBody('password: "s3cret-value\nbroken: [');
      expect.unreachable();
    } catch (error) {
      expect((error as Error).message).not.toContain('s3cret-value');
    }
  });

  it('refuses prototype-polluting keys in JSON and YAML', async () => {
    expect(
      await statusOf(() =>
        decodeBody('{"__proto__":{"admin":true}}', false, 'application/json', [JSON_BODY]),
      ),
    ).toBe(400);
    expect(
      await statusOf(() => decodeBody('{"a":{"constructor":{}}}', false, 'application/json', [JSON_BODY])),
    ).toBe(400);
    expect(
      await statusOf(() => decodeBody('__proto__: {admin: true}', false, 'application/yaml', [YAML_BODY])),
    ).toBe(400);
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
  });

  it(`refuses nesting deeper than ${MAX_BODY_DEPTH}`, async () => {
    const deep = `${'['.repeat(MAX_BODY_DEPTH + 1)}${']'.repeat(MAX_BODY_DEPTH + 1)}`;
    expect(await statusOf(() => decodeBody(deep, false, 'application/json', [JSON_BODY]))).toBe(400);
    const ok = `${'['.repeat(MAX_BODY_DEPTH - 1)}${']'.repeat(MAX_BODY_DEPTH - 1)}`;
    expect(await statusOf(() => decodeBody(ok, false, 'application/json', [JSON_BODY]))).toBeUndefined();
  });

  it('says where JSON and YAML bodies break (line and column), without quoting them', async () => {
    const message = async (fn: () => unknown) => {
      try {
        await fn();
      } catch (error) {
        return (error as Error).message;
      }
      return '';
    };
    const json = await message(() =>
      decodeBody('{\n  "password": "hunter2",\n  oops}', false, undefined, [JSON_BODY]),
    );
    expect(json).toBe('request body is not valid JSON (line 3, column 3)');
    expect(await message(() => parseJsonBodyEcho())).not.toContain('hunter2');
    const yaml = await message(() => parseYamlBody('a: 1\nb: [1, 2\nc: 3\n'));
    expect(yaml).toMatch(/^request body is not valid YAML at line \d+, column \d+: /);
    expect(yaml).toContain('a [ or { is not closed');
    expect(await message(() => parseYamlBody('a: 1\nb:\n  x: 1\n  x: 2\n'))).toBe(
      'request body is not valid YAML at line 4, column 3: a key appears twice in the same mapping',
    );
    expect(await message(() => parseYamlBody('? [a, b]\n: c\n'))).toMatch(/complex YAML keys/);
  });

  it("says what is wrong with YAML in words, never with the parser's codes", async () => {
    const message = (text: string) => {
      try {
        parseYamlBody(text);
      } catch (error) {
        return (error as Error).message;
      }
      return '';
    };
    // A mapping on its key's line: the parser's BLOCK_AS_IMPLICIT_KEY.
    const nested = message('config: host: h\n');
    expect(nested).toBe(
      'request body is not valid YAML at line 1, column 9: a mapping is nested on the same line as its key (put it on the next line, indented, or quote the value)',
    );
    const missingColon = message('type: ClusterWarehouse\nconfig\n  host: h\n');
    expect(missingColon).toContain('is a colon missing after a key?');
    const tabs = message('config:\n\thost: h\n');
    expect(tabs).toContain('a tab is used for indentation (use spaces)');
    for (const text of [
      nested,
      missingColon,
      tabs,
      message('a: "unclosed\n'),
      message('a: 1\n---\nb: 2\n'),
    ]) {
      expect(text).toMatch(/ at line \d+, column \d+: [a-z]/);
      expect(text).not.toMatch(/[A-Z]{3,}_[A-Z_]+/);
    }
  });

  it(`refuses YAML bodies over ${MAX_YAML_BYTES} bytes before parsing them (413)`, async () => {
    const big = `a: "${'x'.repeat(MAX_YAML_BYTES)}"\n`;
    expect(await statusOf(() => parseYamlBody(big))).toBe(413);
    expect(await statusOf(() => parseYamlBody(`a: "${'x'.repeat(1000)}"\n`))).toBeUndefined();
  });

  it('finds a duplicate among many keys of one map', async () => {
    const keys = Array.from({ length: 5000 }, (_, i) => `k${i}: ${i}`);
    expect(await statusOf(() => parseYamlBody([...keys, 'k4999: again'].join('\n')))).toBe(400);
    expect(Object.keys(parseYamlBody(keys.join('\n')) as object)).toHaveLength(5000);
  });

  it('keeps error messages small whatever the body held', async () => {
    const keys = Object.fromEntries(
      Array.from({ length: 20_000 }, (_, i) => [`unknown_${i}_${'k'.repeat(300)}`, 1]),
    );
    const result = z.strictObject({ a: z.optional(z.string()) }).safeParse(keys);
    if (result.success) throw new Error('expected a failure');
    const message = describeIssues(result.error.issues);
    expect(message.length).toBeLessThanOrEqual(2001);
    expect(message).toContain('and 19990 more');
  });
});

function parseJsonBodyEcho() {
  return decodeBody('hunter2', false, 'application/json', [JSON_BODY]);
}
