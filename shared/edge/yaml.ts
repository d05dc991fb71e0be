/**
 * YAML request bodies, for the routes that accept them (integrations and scripts). Parsed with
 * safe settings: YAML 1.2 core schema, explicit tags refused (no !!binary, no custom tags),
 * aliases refused (no alias bombs), merge keys off, duplicate and complex keys refused, and
 * errors that give a line and column but never echo the source text.
 *
 * Cost stays linear in the body: the `yaml` library's own duplicate-key check compares each key
 * with every earlier key of its map (quadratic: 40,000 keys took 13 s), so it is off and
 * `assertPlainMaps` checks keys with one set per map instead. YAML bodies are also capped at
 * `MAX_YAML_BYTES` before parsing — configurations are a few kilobytes; larger payloads can be
 * sent as JSON.
 *
 * Routes name the format (`./yaml-body.ts`), which loads this module with the first YAML body a
 * function receives: the parser stays out of their init (ADR 0013).
 */
import {
  type ErrorCode,
  isMap,
  isNode,
  isScalar,
  type LineCounter,
  LineCounter as Lines,
  parseDocument,
  visit,
} from 'yaml';
import { InvalidInputError } from '../errors';
import { PayloadTooLargeError } from './errors';

/** The largest YAML body accepted (bytes of UTF-8). */
export const MAX_YAML_BYTES = 1024 * 1024;

/**
 * What each of the parser's error codes means, in words (the codes themselves, such as
 * BLOCK_AS_IMPLICIT_KEY, say nothing to someone who pasted a configuration). Never the
 * parser's own message: it can quote the source, which may hold a secret.
 */
const YAML_PROBLEMS: Record<ErrorCode, string> = {
  ALIAS_PROPS: 'an alias has an anchor or a tag',
  BAD_ALIAS: 'an alias is malformed',
  BAD_DIRECTIVE: 'a % directive is malformed',
  BAD_DQ_ESCAPE: 'a double-quoted string has an invalid escape',
  BAD_INDENT: 'items of one mapping or list are not indented alike (or a [ or { is not closed)',
  BAD_PROP_ORDER: 'an anchor or tag is in the wrong place',
  BAD_SCALAR_START: 'a value starts with a reserved character (quote it)',
  BLOCK_AS_IMPLICIT_KEY:
    'a mapping is nested on the same line as its key (put it on the next line, indented, or quote the value)',
  BLOCK_IN_FLOW: 'a block value appears inside [ ] or { }',
  DUPLICATE_KEY: 'a key appears twice in the same mapping',
  IMPOSSIBLE: 'the document could not be read',
  KEY_OVER_1024_CHARS: 'a key is longer than 1024 characters',
  MISSING_CHAR: 'a closing bracket, brace or quote is missing',
  MULTILINE_IMPLICIT_KEY: 'a key spans more than one line (is a colon missing after a key?)',
  MULTIPLE_ANCHORS: 'a value has more than one anchor',
  MULTIPLE_DOCS: 'the body holds more than one YAML document (---)',
  MULTIPLE_TAGS: 'a value has more than one tag',
  NON_STRING_KEY: 'a key is not a string',
  RESOURCE_EXHAUSTION: 'the document is too complex to read',
  TAB_AS_INDENT: 'a tab is used for indentation (use spaces)',
  TAG_RESOLVE_FAILED: 'a tag is unknown or does not fit its value',
  UNEXPECTED_TOKEN: 'something appears where the YAML syntax does not allow it',
  BAD_COLLECTION_TYPE: 'a collection has the wrong type for its tag',
};

function problems(found: readonly { code: ErrorCode }[]): string {
  return [...new Set(found.map((e) => YAML_PROBLEMS[e.code]))].join('; ');
}

function at(lines: LineCounter, offset: number | undefined): string {
  if (offset === undefined) return '';
  const { line, col } = lines.linePos(offset);
  return ` at line ${line}, column ${col}`;
}

/** Refuses explicit tags, complex keys and duplicate keys, visiting each node once. */
function assertPlainMaps(doc: ReturnType<typeof parseDocument>, lines: LineCounter): void {
  visit(doc, (_key, node) => {
    // Explicit tags (!!binary, !!set, !custom, even !!str) are refused: request bodies are plain data.
    if (isNode(node) && node.tag) {
      throw new InvalidInputError(
        `request body uses YAML tags, which are not accepted${at(lines, node.range?.[0])}`,
      );
    }
    if (!isMap(node)) return undefined;
    const seen = new Set<string>();
    for (const pair of node.items) {
      if (!isScalar(pair.key)) {
        const offset = isNode(pair.key) ? pair.key.range?.[0] : undefined;
        throw new InvalidInputError(
          `request body uses complex YAML keys, which are not accepted${at(lines, offset)}`,
        );
      }
      const key = String(pair.key.value);
      if (seen.has(key)) {
        throw new InvalidInputError(
          `request body is not valid YAML${at(lines, pair.key.range?.[0])}: ${YAML_PROBLEMS.DUPLICATE_KEY}`,
        );
      }
      seen.add(key);
    }
    return undefined;
  });
}

export function parseYamlBody(text: string): unknown {
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > MAX_YAML_BYTES) throw new PayloadTooLargeError(MAX_YAML_BYTES, 'YAML request body');
  const lines = new Lines();
  const doc = parseDocument(text, {
    version: '1.2',
    schema: 'core',
    customTags: [],
    merge: false,
    uniqueKeys: false,
    prettyErrors: false,
    strict: true,
    lineCounter: lines,
  });
  const firstError = doc.errors[0];
  if (firstError) {
    // Where the first problem is, and every kind of problem found (one often follows from another).
    throw new InvalidInputError(
      `request body is not valid YAML${at(lines, firstError.pos[0])}: ${problems(doc.errors)}`,
    );
  }
  assertPlainMaps(doc, lines);
  const firstWarning = doc.warnings[0];
  if (firstWarning) {
    // Unresolved tags such as !!binary or !custom arrive as warnings: refuse them.
    throw new InvalidInputError(
      `request body uses YAML features that are not accepted${at(lines, firstWarning.pos[0])}: ${problems(doc.warnings)}`,
    );
  }
  try {
    return doc.toJS({ maxAliasCount: 0 });
  } catch {
    throw new InvalidInputError('request body uses YAML aliases, which are not accepted');
  }
}
