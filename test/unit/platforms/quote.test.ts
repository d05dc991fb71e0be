import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { tokenize } from '../../../shared/platforms/sandbox/sql';
import { scriptFor } from '../../../shared/platforms/scripts';
import { dialectNames } from '../../../shared/platforms/sql/dialects';
import { quoteIdent, quoteLiteral, UnsafeSqlValueError } from '../../../shared/platforms/sql/quote';
import { statementsOf } from '../../../shared/platforms/sql/script';
import { injectionSuite } from '../../support/platform-suites';
import { analytics } from './fixtures';

const DIALECTS = dialectNames();
const hasControl = (s: string) => [...s].some((c) => c.charCodeAt(0) < 32 || c.charCodeAt(0) === 127);

describe('identifier quoting', () => {
  it.each([
    ['cloud', 'a"b', '"a""b"'],
    ['cluster', 'a"b', '"a""b"'],
    ['tsql', 'a]b', '[a]]b]'],
    ['lakehouse', 'a`b', '`a``b`'],
    ['cloud', 'compute_wh', '"COMPUTE_WH"'],
    ['cluster', 'Service_DB', '"service_db"'],
    ['tsql', 'Service_DB', '[Service_DB]'],
    ['cluster', 'Mixed Case', '"Mixed Case"'],
  ] as const)('%s quotes %j as %s', (dialect, value, expected) => {
    expect(quoteIdent(dialect, value)).toBe(expected);
  });

  it('refuses empty names, control characters and NUL', () => {
    for (const d of DIALECTS) {
      expect(() => quoteIdent(d, '')).toThrow(UnsafeSqlValueError);
      expect(() => quoteIdent(d, 'a\u0000b')).toThrow(UnsafeSqlValueError);
      expect(() => quoteIdent(d, 'a\nb')).toThrow(UnsafeSqlValueError);
    }
  });

  it('any printable value reads back as exactly one identifier token with the same name', () => {
    for (const d of DIALECTS) {
      fc.assert(
        fc.property(
          fc.string({ minLength: 1, maxLength: 40 }).filter((s) => !hasControl(s)),
          (value) => {
            const tokens = tokenize(d, quoteIdent(d, value));
            expect(tokens).toHaveLength(1);
            expect(tokens[0]?.t).toBe('ident');
            if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(value)) expect(tokens[0]?.v).toBe(value);
          },
        ),
      );
    }
  });
});

describe('literal quoting', () => {
  it.each([
    ['cloud', `it's \\ here`, `'it''s \\\\ here'`],
    ['cluster', `it's`, `'it''s'`],
    ['tsql', `it's`, `N'it''s'`],
    ['lakehouse', `it's \\`, `'it\\'s \\\\'`],
  ] as const)('%s quotes %j as %s', (dialect, value, expected) => {
    expect(quoteLiteral(dialect, value)).toBe(expected);
  });

  it('refuses NUL everywhere and backslashes on the PostgreSQL/Redshift family', () => {
    for (const d of DIALECTS) expect(() => quoteLiteral(d, 'a\u0000')).toThrow(UnsafeSqlValueError);
    expect(() => quoteLiteral('cluster', 'a\\b')).toThrow(/backslash/);
  });

  it('any value (without NUL) reads back as exactly one string token with the same text', () => {
    for (const d of DIALECTS) {
      fc.assert(
        fc.property(
          fc
            .string({ maxLength: 60 })
            .filter((s) => !s.includes('\u0000') && !(d === 'cluster' && s.includes('\\'))),
          (value) => {
            const tokens = tokenize(d, quoteLiteral(d, value));
            expect(tokens).toEqual([{ t: 'string', v: value }]);
          },
        ),
      );
    }
  });
});

// Every registered SQL type's injection payload (its examples): test/support/platform-suites.ts.
injectionSuite();

describe('injection through a T-SQL cleanup', () => {
  it('the T-SQL view cleanup quotes the schema as a literal', async () => {
    const p = analytics(false, { schema: "v'; DROP TABLE x; --" });
    const drop = statementsOf(await scriptFor('cleanup', p)).find((s) => s.startsWith('DECLARE'));
    expect(drop).toContain(`WHERE s.name = N'v''; DROP TABLE x; --'`);
  });
});
