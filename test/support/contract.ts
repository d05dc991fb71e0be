/**
 * Every response a test receives is checked against the served OpenAPI document
 * (`shared/openapi/openapi.json`, the file `GET /openapi.json` answers with), status code
 * included. The integration client (`./api.ts`) and the hardening client
 * (`../hardening/support.ts`) call `expectDocumented` on each answer, so a route that answers
 * something its contract does not state fails the test that provoked it (ADR 0005).
 *
 * - A request that matches an operation must get one of that operation's statuses, with a
 *   documented media type, and a JSON body that validates against the documented schema
 *   (Ajv, JSON Schema 2020-12 as OpenAPI 3.1 uses it).
 * - A request that matches no operation is answered by the `$default` route, which OpenAPI
 *   cannot describe: it must be a 404 (no such path) or 405 (the path exists, the method does
 *   not) with the `Error` schema. A body over the payload limit is a 413 `Error` on any request.
 * - Every error body's `statusCode` equals the HTTP status.
 */
import { allowedMethods, matchRoute } from '../../shared/edge/route-match';
import document from '../../shared/openapi/openapi.json' with { type: 'json' };
import {
  ERROR_REF,
  jsonBodyRef,
  type ResponseObject,
  responseAt,
  responseValidators,
} from './response-validators';

export interface ObservedResponse {
  method: string;
  /** Path as requested, query string included. */
  path: string;
  status: number;
  contentType: string | null;
  text: string;
}

type Operation = { responses: Record<string, ResponseObject> };
type Paths = Record<string, Record<string, Operation>>;

// Every body schema of the document, compiled by Ajv once per state of the document
// (./response-validators.ts), not once per test file.
const { validators } = responseValidators();

function validatorAt(ref: string) {
  const validate = validators.get(ref);
  if (validate === undefined) throw new Error(`the OpenAPI document has no JSON body schema at ${ref}`);
  if (typeof validate === 'string') throw new Error(`the schema at ${ref} does not compile: ${validate}`);
  return validate;
}

/** Where in the document the answer to this request is described, or what was wrong. */
function describedAt(r: ObservedResponse): { ref?: string; mediaTypes: string[] } | string {
  const url = new URL(r.path, 'http://localhost');
  const method = r.method.toUpperCase();
  const matched = matchRoute(method, url.pathname);
  if (r.status === 413) return { ref: ERROR_REF, mediaTypes: ['application/json'] };
  if (!matched) {
    const expected = allowedMethods(url.pathname).length > 0 ? 405 : 404;
    if (r.status !== expected)
      return `no operation ${method} ${url.pathname} in the document: expected ${expected}, got ${r.status}`;
    return { ref: ERROR_REF, mediaTypes: ['application/json'] };
  }
  const path = matched.route.path;
  const operation = (document.paths as unknown as Paths)[path]?.[method.toLowerCase()];
  if (!operation) return `the document has no operation ${method} ${path}`;
  const listed = operation.responses[String(r.status)];
  if (!listed) {
    return `${method} ${path} answered ${r.status}, which the document does not list (it lists ${Object.keys(operation.responses).join(', ')})`;
  }
  const { at, response } = responseAt(
    document as unknown as Parameters<typeof responseAt>[0],
    path,
    method.toLowerCase(),
    String(r.status),
    listed,
  );
  if (!response) return `${method} ${path}: ${listed.$ref} is not in the document`;
  const mediaTypes = Object.keys(response.content ?? {});
  const first = mediaTypes[0];
  return first === undefined ? { mediaTypes } : { ref: at, mediaTypes };
}

/** What in this response the document does not allow (empty when it matches). */
export function responseMismatches(r: ObservedResponse): string[] {
  const described = describedAt(r);
  if (typeof described === 'string') return [described];
  const at = `${r.method.toUpperCase()} ${r.path} → ${r.status}`;
  if (described.mediaTypes.length === 0) {
    return r.text === '' ? [] : [`${at}: the document lists no body, but one was sent`];
  }
  // A HEAD answer carries the headers of the answer but never its body.
  if (r.method.toUpperCase() === 'HEAD') return [];
  const mediaType = r.contentType?.split(';')[0]?.trim().toLowerCase() ?? '';
  if (!described.mediaTypes.includes(mediaType)) {
    return [`${at}: content-type "${mediaType}" is not one of ${described.mediaTypes.join(', ')}`];
  }
  if (mediaType !== 'application/json') return [];
  let body: unknown;
  try {
    body = JSON.parse(r.text);
  } catch {
    return [`${at}: the body is not JSON: ${r.text.slice(0, 200)}`];
  }
  const problems: string[] = [];
  if (r.status >= 400 && (body as { statusCode?: unknown } | null)?.statusCode !== r.status) {
    problems.push(`${at}: error body statusCode is not the HTTP status`);
  }
  const ref = described.ref === ERROR_REF ? ERROR_REF : jsonBodyRef(described.ref as string);
  const validate = validatorAt(ref);
  if (!validate(body)) {
    for (const e of validate.errors ?? []) {
      problems.push(`${at}: body${e.instancePath} ${e.message} ${JSON.stringify(e.params)}`);
    }
  }
  return problems;
}

/** Throws when the response is not what the document says this request may get. */
export function expectDocumented(r: ObservedResponse): void {
  const problems = responseMismatches(r);
  if (problems.length > 0) {
    throw new Error(
      `response does not match the OpenAPI document:\n  ${problems.slice(0, 10).join('\n  ')}\n  body: ${r.text.slice(0, 500)}`,
    );
  }
}
