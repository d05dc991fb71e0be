/**
 * Request body decoding shared by every route: JSON everywhere, YAML where a route opts in.
 * YAML is parsed with safe settings — core schema, explicit tags refused (no !!binary, no
 * custom tags), aliases refused, merge keys off, duplicate keys refused — and parse errors
 * never echo the source text (it may contain secrets).
 */
import { isNode, parseDocument, visit } from 'yaml';
import { BadRequestError, UnsupportedMediaTypeError } from './errors';

export type BodyFormat = 'json' | 'yaml';

/** Objects and arrays nested deeper than this are refused before validation. */
export const MAX_BODY_DEPTH = 32;

const YAML_TYPES = new Set(['application/yaml', 'application/x-yaml', 'text/yaml', 'text/x-yaml']);
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

export function mediaType(contentType: string | undefined): string | undefined {
  return contentType?.split(';')[0]?.trim().toLowerCase() || undefined;
}

export function bodyFormatOf(contentType: string | undefined, accepted: readonly BodyFormat[]): BodyFormat {
  const type = mediaType(contentType);
  if (type === undefined || type === 'application/json' || type.endsWith('+json')) {
    if (accepted.includes('json')) return 'json';
  } else if (YAML_TYPES.has(type) && accepted.includes('yaml')) {
    return 'yaml';
  }
  const names = accepted.map((f) => (f === 'json' ? 'application/json' : 'application/yaml'));
  throw new UnsupportedMediaTypeError(
    `Content-Type ${type ?? '(none)'} is not accepted; use ${names.join(' or ')}`,
  );
}

export function parseJsonBody(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new BadRequestError('request body is not valid JSON');
  }
}

export function parseYamlBody(text: string): unknown {
  const doc = parseDocument(text, {
    version: '1.2',
    schema: 'core',
    customTags: [],
    merge: false,
    uniqueKeys: true,
    prettyErrors: false,
    strict: true,
  });
  if (doc.errors.length > 0) {
    const codes = [...new Set(doc.errors.map((e) => e.code))].join(', ');
    throw new BadRequestError(`request body is not valid YAML (${codes})`);
  }
  let tagged = false;
  visit(doc, (_key, node) => {
    // Explicit tags (!!binary, !!set, !custom, even !!str) are refused: request bodies are plain data.
    if (isNode(node) && node.tag) {
      tagged = true;
      return visit.BREAK;
    }
    return undefined;
  });
  if (tagged) throw new BadRequestError('request body uses YAML tags, which are not accepted');
  if (doc.warnings.length > 0) {
    // Unresolved tags such as !!binary or !custom arrive as warnings: refuse them.
    const codes = [...new Set(doc.warnings.map((e) => e.code))].join(', ');
    throw new BadRequestError(`request body uses YAML features that are not accepted (${codes})`);
  }
  try {
    return doc.toJS({ maxAliasCount: 0 });
  } catch {
    throw new BadRequestError('request body uses YAML aliases, which are not accepted');
  }
}

/** Refuses prototype-polluting keys and excessive nesting anywhere in a decoded body. */
export function assertSafeStructure(value: unknown, depth = 0): void {
  if (value === null || typeof value !== 'object') return;
  if (depth >= MAX_BODY_DEPTH) {
    throw new BadRequestError(`request body is nested deeper than ${MAX_BODY_DEPTH} levels`);
  }
  if (Array.isArray(value)) {
    for (const item of value) assertSafeStructure(item, depth + 1);
    return;
  }
  for (const key of Object.keys(value)) {
    if (FORBIDDEN_KEYS.has(key))
      throw new BadRequestError(`request body contains the forbidden key "${key}"`);
    assertSafeStructure((value as Record<string, unknown>)[key], depth + 1);
  }
}

export function decodeBody(
  raw: string | undefined,
  isBase64Encoded: boolean,
  contentType: string | undefined,
  accepted: readonly BodyFormat[],
): unknown {
  if (raw === undefined || raw === '') return undefined;
  const text = isBase64Encoded ? Buffer.from(raw, 'base64').toString('utf8') : raw;
  if (text.trim() === '') return undefined;
  const format = bodyFormatOf(contentType, accepted);
  const value = format === 'yaml' ? parseYamlBody(text) : parseJsonBody(text);
  assertSafeStructure(value);
  return value;
}
