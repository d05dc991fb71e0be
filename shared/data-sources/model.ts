/**
 * Data sources (ADR 0016): the request and response shapes of their routes, from which the
 * handlers' types and the OpenAPI document derive. A create body's envelope is checked at the
 * edge and each entry by the use case, so an entry's problem is named `dataSources[i].field`.
 */
import * as z from 'zod';
import { documentedAs, queryInt } from '../edge/validation';
import { typesWhere } from '../platforms';

const MAX_DATA_SOURCES_PER_REQUEST = 50;
const MAX_PAGE_SIZE = 100;

/** The integration types data sources are registered under (their module declares `dataSources`). */
export const dataSourceTypes = () => typesWhere((m) => m.dataSources !== undefined);
const [firstType = '', ...otherTypes] = dataSourceTypes();
const DataSourceTypeSchema = z.enum([firstType, ...otherTypes]);

export const DataSourceEntrySchema = z
  .strictObject({
    dataSourceName: z
      .string()
      .min(1, 'required')
      .max(255, 'must have at most 255 characters')
      // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
      .regex(/^[^\u0000-\u001f\u007f]+$/, 'must not hold control characters')
      .describe('the data source name; unique across the service'),
    prefix: z
      .string()
      .min(1, 'required')
      .max(1100, 'must have at most 1100 characters')
      .describe(
        'the s3:// path of a prefix (ends with /), bucket or object inside the integration’s cloudLocationPath; it must exist there; unique across the service',
      ),
  })
  .meta({ id: 'DataSourceEntry' });
export type DataSourceEntry = z.infer<typeof DataSourceEntrySchema>;

const envelope = {
  type: DataSourceTypeSchema.describe('the type of the integration the data sources are registered under'),
  integrationId: z.number().int().positive().max(Number.MAX_SAFE_INTEGER).describe('the integration’s id'),
};

/** What the edge checks: the entries are checked one by one by the use case. */
export const CreateDataSourcesBodySchema = z.strictObject({
  ...envelope,
  dataSources: z
    .array(z.unknown())
    .min(1, 'must hold at least one data source')
    .max(MAX_DATA_SOURCES_PER_REQUEST, `must hold at most ${MAX_DATA_SOURCES_PER_REQUEST} data sources`),
});
export type CreateDataSourcesBody = z.infer<typeof CreateDataSourcesBodySchema>;

/** The body as documented. */
export const DocumentedCreateBodySchema = z
  .strictObject({
    ...envelope,
    dataSources: z.array(DataSourceEntrySchema).min(1).max(MAX_DATA_SOURCES_PER_REQUEST),
  })
  .meta({ id: 'CreateDataSources' });

export const DataSourceViewSchema = z
  .object({
    dataSourceId: z.number().int(),
    dataSourceName: z.string(),
    prefix: z.string().describe('as registered (a bucket with its trailing /)'),
    integrationId: z.number().int(),
    createdAt: z.string(),
    createdBy: z.number().int().describe('user id of the caller who registered it'),
    createdByName: z.string().optional(),
  })
  .meta({ id: 'DataSource' });
export type DataSourceView = z.infer<typeof DataSourceViewSchema>;

const DataSourceErrorSchema = z.object({
  index: z.number().int().describe('the entry’s position in dataSources'),
  dataSourceName: z.string().optional(),
  prefix: z.string().optional(),
  message: z.string().describe('why the entry was refused, naming the field and any existing data source'),
});
export type DataSourceError = z.infer<typeof DataSourceErrorSchema>;

export const CreateDataSourcesResponseSchema = z
  .object({ dataSources: z.array(DataSourceViewSchema), errors: z.array(DataSourceErrorSchema) })
  .meta({ id: 'CreatedDataSources' });
export type CreateDataSourcesResponse = z.infer<typeof CreateDataSourcesResponseSchema>;

const NOT_A_TOKEN = 'not a nextToken this API returned';

/** A page token: the last id of the page, base64url. */
export const encodePageToken = (lastId: number) => Buffer.from(String(lastId)).toString('base64url');

export const DataSourceListQuerySchema = z.strictObject({
  integrationId: queryInt(1, Number.MAX_SAFE_INTEGER)
    .optional()
    .describe('only the data sources of this integration'),
  pageSize: queryInt(1, MAX_PAGE_SIZE)
    .optional()
    .describe(`data sources per page (default ${MAX_PAGE_SIZE})`),
  nextToken: documentedAs(
    z
      .string()
      .max(64)
      .transform((token, ctx) => {
        const after = Number(Buffer.from(token, 'base64url').toString('utf8'));
        if (!Number.isSafeInteger(after) || after < 1) ctx.addIssue({ code: 'custom', message: NOT_A_TOKEN });
        return after;
      }),
    { type: 'string', maxLength: 64, description: 'the previous page’s nextToken' },
  ).optional(),
});
export type DataSourceListQuery = z.infer<typeof DataSourceListQuerySchema>;
export const DEFAULT_PAGE_SIZE = MAX_PAGE_SIZE;

export const DataSourcePageSchema = z
  .object({
    dataSources: z.array(DataSourceViewSchema).describe('in id order'),
    nextToken: z.string().optional().describe('absent on the last page'),
  })
  .meta({ id: 'DataSourcePage' });
export type DataSourcePage = z.infer<typeof DataSourcePageSchema>;
