/**
 * Data sources (ADR 0016): the request and response shapes of their routes, from which the
 * handlers' types and the OpenAPI document derive. A create body's envelope is checked at the
 * edge and each entry by the use case, so an entry's problem is named `dataSources[i].field`.
 */
import * as z from 'zod/mini';
import { documentedAs, queryInt } from '../edge/validation';
import { typesWhere } from '../platforms';
import { described, withMeta } from '../schema-meta';

const MAX_DATA_SOURCES_PER_REQUEST = 50;
const MAX_PAGE_SIZE = 100;

/** The integration types data sources are registered under (their module declares `dataSources`). */
export const dataSourceTypes = () => typesWhere((m) => m.dataSources !== undefined);
const [firstType = '', ...otherTypes] = dataSourceTypes();
const DataSourceTypeSchema = z.enum([firstType, ...otherTypes]);

export const DataSourceEntrySchema = withMeta(
  z.strictObject({
    dataSourceName: described(
      z.string().check(
        z.minLength(1, 'required'),
        z.maxLength(255, 'must have at most 255 characters'),
        // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
        z.regex(/^[^\u0000-\u001f\u007f]+$/, 'must not hold control characters'),
      ),
      'the data source name; unique across the service',
    ),
    prefix: described(
      z.string().check(z.minLength(1, 'required'), z.maxLength(1100, 'must have at most 1100 characters')),
      'the s3:// path of a prefix (ends with /), bucket or object inside the integration’s cloudLocationPath; it must exist there; unique across the service',
    ),
  }),
  { id: 'DataSourceEntry' },
);
export type DataSourceEntry = z.infer<typeof DataSourceEntrySchema>;

const envelope = {
  type: described(DataSourceTypeSchema, 'the type of the integration the data sources are registered under'),
  integrationId: described(
    z.int().check(z.positive(), z.lte(Number.MAX_SAFE_INTEGER)),
    'the integration’s id',
  ),
};

/** What the edge checks: the entries are checked one by one by the use case. */
export const CreateDataSourcesBodySchema = z.strictObject({
  ...envelope,
  dataSources: z
    .array(z.unknown())
    .check(
      z.minLength(1, 'must hold at least one data source'),
      z.maxLength(
        MAX_DATA_SOURCES_PER_REQUEST,
        `must hold at most ${MAX_DATA_SOURCES_PER_REQUEST} data sources`,
      ),
    ),
});
export type CreateDataSourcesBody = z.infer<typeof CreateDataSourcesBodySchema>;

/** The body as documented. */
export const DocumentedCreateBodySchema = withMeta(
  z.strictObject({
    ...envelope,
    dataSources: z
      .array(DataSourceEntrySchema)
      .check(z.minLength(1), z.maxLength(MAX_DATA_SOURCES_PER_REQUEST)),
  }),
  { id: 'CreateDataSources' },
);

export const DataSourceViewSchema = withMeta(
  z.object({
    dataSourceId: z.int(),
    dataSourceName: z.string(),
    prefix: described(z.string(), 'as registered (a bucket with its trailing /)'),
    integrationId: z.int(),
    createdAt: z.string(),
    createdBy: described(z.int(), 'user id of the caller who registered it'),
    createdByName: z.optional(z.string()),
  }),
  { id: 'DataSource' },
);
export type DataSourceView = z.infer<typeof DataSourceViewSchema>;

const DataSourceErrorSchema = z.object({
  index: described(z.int(), 'the entry’s position in dataSources'),
  dataSourceName: z.optional(z.string()),
  prefix: z.optional(z.string()),
  message: described(z.string(), 'why the entry was refused, naming the field and any existing data source'),
});
export type DataSourceError = z.infer<typeof DataSourceErrorSchema>;

export const CreateDataSourcesResponseSchema = withMeta(
  z.object({ dataSources: z.array(DataSourceViewSchema), errors: z.array(DataSourceErrorSchema) }),
  { id: 'CreatedDataSources' },
);
export type CreateDataSourcesResponse = z.infer<typeof CreateDataSourcesResponseSchema>;

const NOT_A_TOKEN = 'not a nextToken this API returned';

/** A page token: the last id of the page, base64url. */
export const encodePageToken = (lastId: number) => Buffer.from(String(lastId)).toString('base64url');

export const DataSourceListQuerySchema = z.strictObject({
  integrationId: described(
    z.optional(queryInt(1, Number.MAX_SAFE_INTEGER)),
    'only the data sources of this integration',
  ),
  pageSize: described(
    z.optional(queryInt(1, MAX_PAGE_SIZE)),
    `data sources per page (default ${MAX_PAGE_SIZE})`,
  ),
  nextToken: z.optional(
    documentedAs(
      z.pipe(
        z.string().check(z.maxLength(64)),
        z.transform((token, ctx) => {
          const after = Number(Buffer.from(token, 'base64url').toString('utf8'));
          if (!Number.isSafeInteger(after) || after < 1)
            ctx.issues.push({ code: 'custom', input: token, message: NOT_A_TOKEN });
          return after;
        }),
      ),
      { type: 'string', maxLength: 64, description: 'the previous page’s nextToken' },
    ),
  ),
});
export type DataSourceListQuery = z.infer<typeof DataSourceListQuerySchema>;
export const DEFAULT_PAGE_SIZE = MAX_PAGE_SIZE;

export const DataSourcePageSchema = withMeta(
  z.object({
    dataSources: described(z.array(DataSourceViewSchema), 'in id order'),
    nextToken: described(z.optional(z.string()), 'absent on the last page'),
  }),
  { id: 'DataSourcePage' },
);
export type DataSourcePage = z.infer<typeof DataSourcePageSchema>;
