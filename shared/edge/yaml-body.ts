/**
 * YAML as a request body format, for the routes that accept it (integrations and scripts). The
 * parser (`./yaml.ts` with the `yaml` library, about 115 KB of a 300 KB API bundle) is imported
 * with the first YAML body a function receives, so a route that takes JSON or YAML loads only
 * JSON's at init, and its bundle keeps the parser in a chunk of its own (ADR 0013).
 */
import { type BodyFormat, JSON_BODY } from './body';

const YAML_TYPES = new Set(['application/yaml', 'application/x-yaml', 'text/yaml', 'text/x-yaml']);

export const YAML_BODY: BodyFormat = {
  mediaType: 'application/yaml',
  accepts: (type) => type !== undefined && YAML_TYPES.has(type),
  parse: async (text) => (await import('./yaml')).parseYamlBody(text),
};

/** What integration and script routes accept. */
export const JSON_OR_YAML: readonly BodyFormat[] = [JSON_BODY, YAML_BODY];
