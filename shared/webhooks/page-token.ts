/**
 * Page tokens: a listing's position handed to the caller as `nextToken` (the base64url JSON of a
 * store key with numeric attributes), and the query parameter that reads one back.
 */
import * as z from 'zod/mini';
import { documentedAs } from '../edge/validation';

/** A page position: the base64url JSON of a store key with numeric attributes. */
export type PageKey = Record<string, number>;

export const NOT_A_TOKEN = 'not a nextToken this API returned';

function decodePageKey(token: string): PageKey | undefined {
  try {
    const key: unknown = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
    if (typeof key !== 'object' || key === null || Array.isArray(key)) return undefined;
    const entries = Object.entries(key);
    if (entries.length === 0 || !entries.every(([, v]) => Number.isSafeInteger(v))) return undefined;
    return key as PageKey;
  } catch {
    return undefined;
  }
}

export const encodePageKey = (key: Record<string, unknown>): string =>
  Buffer.from(JSON.stringify(key), 'utf8').toString('base64url');

/** The `nextToken` query parameter: a token this API returned, read back to its key. */
export const nextTokenParam = documentedAs(
  z.pipe(
    z.string().check(z.maxLength(2048)),
    z.transform((token, ctx) => {
      const key = decodePageKey(token);
      if (!key) ctx.issues.push({ code: 'custom', input: token, message: NOT_A_TOKEN });
      return key ?? {};
    }),
  ),
  { type: 'string', maxLength: 2048, description: 'the previous page’s nextToken' },
);
