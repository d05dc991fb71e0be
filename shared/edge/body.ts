/**
 * Request body decoding shared by every route: JSON everywhere, YAML where a route opts in
 * (`./yaml-body.ts`, kept apart so only those routes bundle the YAML parser, loaded on demand). Parse errors never
 * echo the source text: it may contain secrets.
 */
import { InvalidInputError } from '../errors';
import { UnsupportedMediaTypeError } from './errors';

/** A body format a route accepts: which media types select it and how to parse it. */
export interface BodyFormat {
  /** The media type named in 415 messages. */
  readonly mediaType: string;
  /** Whether a request's media type (undefined when absent) selects this format. */
  accepts(mediaType: string | undefined): boolean;
  /** The decoded value; a format whose parser loads on demand (YAML) answers a promise. */
  parse(text: string): unknown | Promise<unknown>;
}

/** Objects and arrays nested deeper than this are refused before validation. */
export const MAX_BODY_DEPTH = 32;

const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

function mediaType(contentType: string | undefined): string | undefined {
  return contentType?.split(';')[0]?.trim().toLowerCase() || undefined;
}

function bodyFormatOf(contentType: string | undefined, accepted: readonly BodyFormat[]): BodyFormat {
  const type = mediaType(contentType);
  const format = accepted.find((f) => f.accepts(type));
  if (format) return format;
  const names = accepted.map((f) => f.mediaType);
  throw new UnsupportedMediaTypeError(
    `Content-Type ${type ?? '(none)'} is not accepted; use ${names.join(' or ')}`,
  );
}

/** `line L, column C` (1-based) of a character offset. */
export function lineAndColumn(text: string, offset: number): string {
  let line = 1;
  let start = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++;
    start = i + 1;
  }
  return `line ${line}, column ${offset - start + 1}`;
}

function parseJsonBody(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    // Only the offset is taken from the parser's message: its text can quote the input.
    const position = /at position (\d+)/.exec(String((error as Error).message))?.[1];
    const where = position === undefined ? 'unexpected end of input' : lineAndColumn(text, Number(position));
    throw new InvalidInputError(`request body is not valid JSON (${where})`);
  }
}

/** JSON, also chosen when the request has no Content-Type. */
export const JSON_BODY: BodyFormat = {
  mediaType: 'application/json',
  accepts: (type) => type === undefined || type === 'application/json' || type.endsWith('+json'),
  parse: parseJsonBody,
};

/** Refuses prototype-polluting keys and excessive nesting anywhere in a decoded body. */
function assertSafeStructure(value: unknown, depth = 0): void {
  if (value === null || typeof value !== 'object') return;
  if (depth >= MAX_BODY_DEPTH) {
    throw new InvalidInputError(`request body is nested deeper than ${MAX_BODY_DEPTH} levels`);
  }
  if (Array.isArray(value)) {
    for (const item of value) assertSafeStructure(item, depth + 1);
    return;
  }
  for (const key of Object.keys(value)) {
    if (FORBIDDEN_KEYS.has(key))
      throw new InvalidInputError(`request body contains the forbidden key "${key}"`);
    assertSafeStructure((value as Record<string, unknown>)[key], depth + 1);
  }
}

export async function decodeBody(
  raw: string | undefined,
  isBase64Encoded: boolean,
  contentType: string | undefined,
  accepted: readonly BodyFormat[],
): Promise<unknown> {
  if (raw === undefined || raw === '') return undefined;
  const text = isBase64Encoded ? Buffer.from(raw, 'base64').toString('utf8') : raw;
  if (text.trim() === '') return undefined;
  const value = await bodyFormatOf(contentType, accepted).parse(text);
  assertSafeStructure(value);
  return value;
}
