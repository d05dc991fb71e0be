/**
 * The data-source routes' contracts (ADR 0016): what the edge validates and the OpenAPI document
 * shows. Spread into `contracts` in shared/openapi/contracts.ts.
 */
import * as z from 'zod/mini';
import type { RouteContract } from '../catalog/contract';
import { ErrorBodySchema } from '../edge/error-body';
import { idParam } from '../edge/validation';
import { JSON_OR_YAML } from '../edge/yaml-body';
import {
  CreateDataSourcesBodySchema,
  CreateDataSourcesResponseSchema,
  DataSourceListQuerySchema,
  DataSourcePageSchema,
  DataSourceViewSchema,
  DocumentedCreateBodySchema,
} from './model';

const DataSourceIdParamsSchema = z.object({ id: idParam() });
const notFound = { description: 'No data source with the id.', schema: ErrorBodySchema };

export const dataSourceContracts = {
  'POST /data-sources': {
    body: CreateDataSourcesBodySchema,
    documentedBody: DocumentedCreateBodySchema,
    bodyFormats: JSON_OR_YAML,
    responses: {
      201: {
        description:
          'At least one data source was registered; `errors` names every refused entry (by index) and why: a name or prefix already registered (naming its id), a path that does not exist in the remote or could not be checked.',
        schema: CreateDataSourcesResponseSchema,
      },
      400: {
        description:
          'The body, an entry (`dataSources[i].field`) or a prefix that is not an s3:// path inside the integration’s cloudLocationPath (`dataSources[i].prefix`; nothing registered); or the integration is of a type without data sources.',
        schema: ErrorBodySchema,
      },
      404: { description: 'No integration with the id.', schema: ErrorBodySchema },
      409: {
        description: 'The integration is not enabled (`status` names its status).',
        schema: z.extend(ErrorBodySchema, { status: z.optional(z.string()) }),
      },
      422: {
        description: 'No data source was registered; `errors` says why for each entry.',
        schema: z.extend(ErrorBodySchema, CreateDataSourcesResponseSchema.shape),
      },
      502: {
        description: 'The platform connector could not check the paths; retry.',
        schema: ErrorBodySchema,
      },
    },
  },
  'GET /data-sources': {
    query: DataSourceListQuerySchema,
    responses: {
      200: { description: 'One page of data sources, in id order.', schema: DataSourcePageSchema },
    },
  },
  'GET /data-sources/{id}': {
    params: DataSourceIdParamsSchema,
    responses: { 200: { description: 'The data source.', schema: DataSourceViewSchema }, 404: notFound },
  },
  'DELETE /data-sources/{id}': {
    params: DataSourceIdParamsSchema,
    responses: {
      200: {
        description: 'The data source removed from the service (nothing remote is touched).',
        schema: DataSourceViewSchema,
      },
      404: notFound,
    },
  },
} satisfies Record<string, RouteContract>;
