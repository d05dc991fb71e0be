/**
 * YAML request bodies, for the routes that accept them (integrations and scripts). Parsed with
 * safe settings: YAML 1.2 core schema, explicit tags refused (no !!binary, no custom tags),
 * aliases refused (no alias bombs), merge keys off, duplicate keys refused, and errors that
 * never echo the source text.
 */
import { isNode, parseDocument, visit } from 'yaml';
import { InvalidInputError } from '../errors';
import { type BodyFormat, JSON_BODY } from './body';

const YAML_TYPES = new Set(['application/yaml', 'application/x-yaml', 'text/yaml', 'text/x-yaml']);

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
    throw new InvalidInputError(`request body is not valid YAML (${codes})`);
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
  if (tagged) throw new InvalidInputError('request body uses YAML tags, which are not accepted');
  if (doc.warnings.length > 0) {
    // Unresolved tags such as !!binary or !custom arrive as warnings: refuse them.
    const codes = [...new Set(doc.warnings.map((e) => e.code))].join(', ');
    throw new InvalidInputError(`request body uses YAML features that are not accepted (${codes})`);
  }
  try {
    return doc.toJS({ maxAliasCount: 0 });
  } catch {
    throw new InvalidInputError('request body uses YAML aliases, which are not accepted');
  }
}

export const YAML_BODY: BodyFormat = {
  mediaType: 'application/yaml',
  accepts: (type) => type !== undefined && YAML_TYPES.has(type),
  parse: parseYamlBody,
};

/** What integration and script routes accept. */
export const JSON_OR_YAML: readonly BodyFormat[] = [JSON_BODY, YAML_BODY];
