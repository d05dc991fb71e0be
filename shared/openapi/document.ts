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
import { routeKey, routes } from '../catalog/routes';
import { JSON_BODY } from '../edge/body';
import { ErrorBodySchema } from '../edge/errors';
import { contracts } from './contracts';

const ERROR_STATUSES: Record<string, number[]> = {
  public: [],
  user: [401],
  admin: [401, 403],
};

export function buildOpenApiDocument(): ReturnType<typeof createDocument> {
  const paths: ZodOpenApiPathsObject = {};
  for (const route of routes) {
    const key = routeKey(route);
    const contract = contracts[key];
    if (!contract) throw new Error(`route ${key} has no contract in shared/openapi/contracts.ts`);
    const responses: Record<string, ZodOpenApiResponseObject> = {};
    for (const [status, response] of Object.entries(contract.responses)) {
      const types = response.contentTypes ?? ['application/json'];
      responses[status] = {
        description: response.description,
        ...(response.schema
          ? { content: Object.fromEntries(types.map((t) => [t, { schema: response.schema as never }])) }
          : {}),
      };
    }
    const documentedBody = contract.documentedBody ?? contract.body;
    const errorStatuses = [...(ERROR_STATUSES[route.auth] ?? []), ...(contract.body ? [400, 413, 415] : [])];
    for (const status of errorStatuses) {
      responses[String(status)] ??= {
        description: 'Error',
        content: { 'application/json': { schema: ErrorBodySchema } },
      };
    }
    const operation: ZodOpenApiOperationObject = {
      operationId: `${route.method.toLowerCase()}${route.path.replace(/[{}]/g, '').replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ?? '').toUpperCase())}`,
      summary: route.summary,
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
    const method = route.method.toLowerCase() as 'get' | 'post' | 'put' | 'delete';
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
    paths,
  });
}

export const OPENAPI_FILE = join(import.meta.dirname, 'openapi.json');

/** The document as the served file holds it. */
export function renderOpenApiDocument(): string {
  return `${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`;
}
