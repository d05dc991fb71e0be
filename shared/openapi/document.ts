/**
 * Builds the OpenAPI 3.1 document from the route table and the zod contracts. The served copy,
 * `openapi.json` beside this file, is rendered from it (`npm run openapi -- --write`); a unit
 * test keeps the two identical.
 */
import { join } from 'node:path';
import {
  createDocument,
  type ZodOpenApiOperationObject,
  type ZodOpenApiPathsObject,
  type ZodOpenApiResponseObject,
} from 'zod-openapi';
import type { RouteContract } from '../catalog/contract';
import { routeSummary } from '../catalog/route-summaries';
import { type RouteDef, routeKey, routes } from '../catalog/routes';
import { JSON_BODY } from '../edge/body';
import { ErrorBodySchema } from '../edge/error-body';
import { contracts } from './contracts';

/** Statuses the edge itself may answer on a route, by who may call it. */
const AUTH_STATUSES: Record<string, Record<number, string>> = {
  public: {},
  user: { 401: 'No valid API key in the Authorization header.' },
  admin: {
    401: 'No valid API key in the Authorization header.',
    403: 'The key’s principal lacks APPLICATION_ADMIN.',
  },
};

/** Error answers every operation can give, whatever its contract says. */
const EVERY_ROUTE: Record<number, string> = {
  413: 'The request body exceeds the payload limit (6 MiB; 1 MiB for YAML).',
  500: 'An unexpected error; the details are logged, never returned.',
  503: 'The function did not answer in time, or a remote platform is unavailable; retry.',
};

/** The names of the edge's answers as response components (each described once, referenced). */
const EDGE_RESPONSE_IDS: Record<number, string> = {
  401: 'Unauthorized',
  403: 'AdminOnly',
  404: 'NotFound',
  413: 'PayloadTooLarge',
  415: 'UnsupportedMediaType',
  500: 'InternalError',
  503: 'Unavailable',
};

/**
 * The error answers the edge gives from the contract alone (validation, media type, ids), each
 * with the id of its response component: the same answer on every route is one component.
 */
function edgeStatuses(route: RouteDef, contract: RouteContract): Record<number, [string, string]> {
  const statuses: Record<number, string> = { ...AUTH_STATUSES[route.auth] };
  const checked = [contract.params && 'path', contract.query && 'query', contract.body && 'body'].filter(
    (part): part is string => typeof part === 'string',
  );
  if (checked.length > 0)
    statuses[400] = `The ${checked.join(', ')} does not match the contract (the message names the field).`;
  if (route.path.includes('{')) statuses[404] = 'Nothing with this id visible to the caller.';
  if (contract.body) statuses[415] = 'The Content-Type is not one the route accepts.';
  const invalid = `Invalid${checked.map((part) => part.charAt(0).toUpperCase() + part.slice(1)).join('')}`;
  return Object.fromEntries(
    Object.entries({ ...statuses, ...EVERY_ROUTE }).map(([status, description]) => [
      status,
      [EDGE_RESPONSE_IDS[Number(status)] ?? invalid, description],
    ]),
  );
}

/** A `servers` entry of the document (OpenAPI Server Object). */
export interface ServerEntry {
  url: string;
  description?: string;
  variables?: Record<string, { default: string; description?: string; enum?: string[] }>;
}

function buildOpenApiDocument(servers: readonly ServerEntry[] = []): ReturnType<typeof createDocument> {
  const paths: ZodOpenApiPathsObject = {};
  /** The edge's answers, one object per component (the document refers to each). */
  const edgeResponses = new Map<string, ZodOpenApiResponseObject>();
  for (const route of routes) {
    const key = routeKey(route);
    const contract = contracts[key];
    if (!contract) throw new Error(`route ${key} has no contract in shared/openapi/contracts.ts`);
    const responses: Record<string, ZodOpenApiResponseObject> = {};
    for (const [status, response] of Object.entries(contract.responses)) {
      const types = response.contentTypes ?? ['application/json'];
      // An error the contract describes without a body shape is the plain `Error`.
      const declared = typeof response.schema === 'function' ? response.schema() : response.schema;
      const schema = declared ?? (Number(status) >= 400 ? ErrorBodySchema : undefined);
      responses[status] = {
        description: response.description,
        ...(schema
          ? { content: Object.fromEntries(types.map((t) => [t, { schema: schema as never }])) }
          : {}),
      };
    }
    const documentedBody = contract.documentedBody ?? contract.body;
    for (const [status, [id, description]] of Object.entries(edgeStatuses(route, contract))) {
      let shared = edgeResponses.get(id);
      if (!shared) {
        shared = { id, description, content: { 'application/json': { schema: ErrorBodySchema } } };
        edgeResponses.set(id, shared);
      }
      responses[status] ??= shared;
    }
    const operation: ZodOpenApiOperationObject = {
      operationId: `${route.method.toLowerCase()}${route.path.replace(/[{}]/g, '').replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ?? '').toUpperCase())}`,
      summary: routeSummary(route),
      tags: [route.tag],
      ...(route.auth === 'public' ? { security: [] } : {}),
      ...(contract.params || contract.query
        ? {
            requestParams: {
              ...(contract.params ? { path: contract.params } : {}),
              ...(contract.query ? { query: contract.query } : {}),
            },
          }
        : {}),
      ...(documentedBody
        ? {
            requestBody: {
              required: contract.bodyRequired ?? true,
              content: Object.fromEntries(
                (contract.bodyFormats ?? [JSON_BODY]).map((f) => [
                  f.mediaType,
                  { schema: documentedBody as never },
                ]),
              ),
            },
          }
        : {}),
      responses,
    };
    const method = route.method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete';
    paths[route.path] = { ...paths[route.path], [method]: operation };
  }
  return createDocument({
    openapi: '3.1.0',
    info: {
      title: 'Causeway',
      version: '1.0.0',
      description: 'Integrations with remote data platforms, and webhooks for every notification.',
    },
    components: {
      securitySchemes: {
        apiKey: {
          type: 'apiKey',
          in: 'header',
          name: 'Authorization',
          description: 'The API key, bare or as `Bearer <key>`.',
        },
      },
    },
    security: [{ apiKey: [] }],
    ...(servers.length > 0 ? { servers: servers.map((server) => ({ ...server })) } : {}),
    paths,
  });
}

/**
 * The document with every `{"not": {}}` (how zod renders `z.never()`: a field never accepted)
 * written as the false schema, which says the same and which openapi-typescript types `never`
 * (`{"not": {}}` it types `unknown`, so a client could send the field).
 */
function neverAsFalse(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(neverAsFalse);
  if (node === null || typeof node !== 'object') return node;
  const entries = Object.entries(node);
  const [only] = entries;
  if (entries.length === 1 && only?.[0] === 'not' && JSON.stringify(only[1]) === '{}') return false;
  return Object.fromEntries(entries.map(([key, value]) => [key, neverAsFalse(value)]));
}

export const OPENAPI_FILE = join(import.meta.dirname, 'openapi.json');

/** The document as the served file holds it (`servers`: one per cataloged stage). */
export function renderOpenApiDocument(servers: readonly ServerEntry[]): string {
  return `${JSON.stringify(neverAsFalse(buildOpenApiDocument(servers)), null, 2)}\n`;
}

/**
 * What `GET /openapi.json` serves (`npm run openapi -- --write` writes both): the document as
 * compact JSON in a file of its own, read on the first request, and the module that says where it
 * is and where its `servers` list opens.
 */
export const SERVED_DOCUMENT_FILE = join(import.meta.dirname, 'served-document.json');
export const SERVED_DOCUMENT_MODULE = join(import.meta.dirname, 'served-document.ts');

/**
 * The served files for the document in `json` (`openapi.json`'s text): the document as one
 * compact JSON text, and the module giving its URL and where its `servers` list opens, so the
 * function answers the document with the server the request reached spliced in first, without
 * parsing it, building it as an object or even compiling it as a string literal at init (ADR
 * 0021). The answer is byte for byte what `JSON.stringify` of the document with that server
 * prepended gives.
 */
export function renderServedDocument(json: string): { text: string; module: string } {
  const document = JSON.parse(json) as { servers?: unknown[] };
  if (!document.servers?.length) throw new Error('the served document needs at least one server');
  const marker = '\u0000first server';
  const marked = JSON.stringify({ ...document, servers: [marker, ...document.servers] });
  const markerText = `${JSON.stringify(marker)},`;
  const at = marked.indexOf(markerText);
  const text = marked.slice(0, at) + marked.slice(at + markerText.length);
  const module = [
    '// Generated by `npm run openapi -- --write` from openapi.json; a unit test keeps it up to date.',
    '// What GET /openapi.json serves is the text of served-document.json, read on the first request:',
    '// compiling it as a string literal cost its function 2–4 ms of init (ADR 0021).',
    '',
    '/**',
    ' * The document, compact JSON: beside this module in the repository (tests, the local cloud), beside',
    " * the function's index.mjs in its bundle (HandlerBundles copies it there, `MODULE_FILES`).",
    ' */',
    "export const servedDocumentPath = (): string => import.meta.dirname + '/served-document.json';",
    '',
    '/** Where the first entry of its `servers` list starts (the server the request reached goes there). */',
    `export const FIRST_SERVER_AT = ${at};`,
    '',
  ].join('\n');
  return { text, module };
}
